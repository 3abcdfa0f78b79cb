// The log, command handling, importers and replay.
