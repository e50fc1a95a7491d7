import { Type, type Static } from "@sinclair/typebox";
import { bindTool, type RuntimeToolResult, type ToolExecutionContext } from "@turnkit/agent-core";

const OrderLookupParameters = Type.Object({ orderId: Type.String({ description: "An order id such as A-1042" }) });

/** One order as the shop's store holds it. */
export interface Order {
  status: string;
  kmToGo: number;
}

/** What the tool reports to the host (logs, UI); the model never sees `details`. */
export interface OrderLookupDetails {
  orderId: string;
  calledBy: string;
}

/**
 * A tool written as a class with the `@bindTool` decorator. A class suits a
 * tool with dependencies: the store comes in through the constructor, and
 * `execute` reads it through `this` (`toRuntimeTool` binds it). An unknown
 * order is an error result (`isError: true`): the model sees a failed call
 * with the text of `content` and can recover; `details` of an error result
 * are not kept, so only a found order carries them.
 */
@bindTool({
  name: "lookup_order",
  label: "Order lookup",
  description: "Looks up the delivery status of an order.",
  parameters: OrderLookupParameters,
  executionMode: "parallel",
})
export class OrderLookupTool {
  constructor(private readonly orders: ReadonlyMap<string, Order>) {}

  execute(
    ctx: ToolExecutionContext,
    input: Static<typeof OrderLookupParameters>,
  ): RuntimeToolResult<OrderLookupDetails> {
    const order = this.orders.get(input.orderId);
    if (!order) return { content: [{ type: "text", text: `No order ${input.orderId}` }], isError: true };
    return {
      content: [{ type: "text", text: `${input.orderId}: ${order.status}, ${order.kmToGo} km to go` }],
      details: { orderId: input.orderId, calledBy: ctx.toolCallId },
    };
  }
}
