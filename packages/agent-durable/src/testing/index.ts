/**
 * `@turnkit/agent-durable/testing`: a throwaway Postgres for tests,
 * examples and benchmarks of durable turns.
 */
export { startTestPostgres, type StartTestPostgresOptions, type TestPostgres } from "./test-postgres.js";
