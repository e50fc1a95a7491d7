import { getCurrentContextStore } from "@dbos-inc/dbos-sdk/internal/context";
import pg from "pg";
import { isDatabaseUnreachable } from "./unreachable-database.js";

/** The execution of a turn a statement was sent for: its turn key (workflow id) and the claim token DBOS gave it. */
export interface TurnExecution {
  turnKey: string;
  token: string;
}

/**
 * Hands the turn of `execution` back after `error` (its connection was
 * lost under one of its statements): resolves to the error the statement
 * rejects with instead (the execution's `superseded` error once the turn
 * is queued again), or `error` itself when the turn cannot be handed back
 * here (the worker shuts down and hands every turn back itself).
 */
export type HandBackTurn = (execution: TurnExecution, error: unknown) => Promise<unknown>;

/**
 * A `pg.Pool` for the statements of turns that no caller sends again: when
 * one sent by a turn's execution (in the async context of its DBOS
 * workflow) fails because its connection was lost or the database could
 * not be reached (see `isDatabaseUnreachable`: the server ended the
 * connection, a reset, a statement timed out), it hands the turn back
 * before the statement rejects. Such a failure is the worker's, never the
 * turn's: recorded as a step's outcome, or taken by the runner as a failed
 * request or tool call, it would end the turn `failed`, or end its workflow
 * without an outcome, and what the statement did is unknown (it may have
 * committed). So the turn is queued again, which revokes the execution's
 * claim: the statement rejects with `superseded`, the execution writes
 * nothing more and stops, and a worker replays the turn from its records,
 * as after a crash at that point. Statements sent outside a turn's
 * execution, and other errors, reject as `pg.Pool` rejects them.
 * Transactions (`connect()`) hand back through {@link lostConnection},
 * which `inTransaction` calls.
 */
export class HandingBackPool extends pg.Pool {
  constructor(
    config: pg.PoolConfig,
    private readonly handBack: HandBackTurn,
  ) {
    super(config);
  }

  override query(...args: any[]): any {
    const [config, values, callback] = args;
    if (typeof values === "function" || typeof callback === "function" || typeof config?.submit === "function") {
      return (super.query as (...all: any[]) => any)(...args);
    }
    return this.send(config, values);
  }

  /**
   * What a statement of this pool that failed with `error` rejects with:
   * when the connection was lost under a statement of a turn's execution,
   * the turn is handed back first (see the class); otherwise `error`.
   */
  async lostConnection(error: unknown): Promise<unknown> {
    if (!isDatabaseUnreachable(error)) return error;
    const context = getCurrentContextStore();
    if (context?.workflowId === undefined || context.ownerXid === undefined) return error;
    return this.handBack({ turnKey: context.workflowId, token: context.ownerXid }, error);
  }

  private async send(config: unknown, values: unknown): Promise<pg.QueryResult> {
    try {
      return await (super.query as (config: unknown, values: unknown) => Promise<pg.QueryResult>)(config, values);
    } catch (error) {
      throw await this.lostConnection(error);
    }
  }
}
