// ReplayTestSupport: what every test target shares instead of copying it.
//
// - `SplitMix64`, the one seeded generator, and `TestSeed`, which prints each random test's seed
//   and lets `REPLAY_TEST_SEED=<seed>` rerun it with the same values;
// - `withTemporaryDirectory`, a unique directory per call, removed afterwards;
// - `RepositoryFiles`, the seed data (`REPLAY_SEED_DATA` overrides its folder) and sample log.
//
// A plain target, not a product: only the test targets depend on it, and it depends on nothing
// but Foundation.
