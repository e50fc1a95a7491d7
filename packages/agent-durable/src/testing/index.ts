/**
 * `@turnkit/agent-durable/testing`: throwaway Postgres databases for tests,
 * examples and benchmarks of durable turns.
 */
export { startTestPostgres, type StartTestPostgresOptions, type TestPostgres } from "./test-postgres.js";
export { SHARED_TEST_POSTGRES_ENV, startSharedTestPostgres, type SharedTestPostgres } from "./shared-test-postgres.js";
