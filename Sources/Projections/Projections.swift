// Read models: pure folds from events (see docs/ARCHITECTURE.md).
