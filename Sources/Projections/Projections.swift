// Read models: pure folds from the log's events into what the five apps' screens show.
//
// - `ReadModel`: the protocol every model follows (fold, JSON view, entries for diffs, checkpoint
//   codec); `ReadModels` folds all five at once.
// - `Models/`: `ContactList` (contacts), `ZipCodeList` (zipcodes), `ObservationList`
//   (observations), `AnimalCatalog` (animals), `LocationList` (locations).
// - `Checkpoint/`: `BinaryWriter` / `BinaryReader` and the `ReadModelCheckpoint` envelope.
// - `Geo/`: Haversine distances and the nearest-neighbour index the locations use.
// - `Support/`: storage and ordering shared by the models.
