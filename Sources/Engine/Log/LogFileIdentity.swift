/// Which file a log is: the device and inode of the file its path opened.
///
/// The caches beside a log (the index, the checkpoints) record it when they are saved and
/// compare it before they are used, on top of their checks of the log's bytes: a cache copied
/// beside another file (a forked copy of the log, a restored backup, a folder copied whole) is
/// never used, however many of its sampled lines that file shares, and is rebuilt from the log.
/// What it cannot tell apart is a file whose bytes were replaced in place (same inode): the byte
/// checks catch that where the bytes differ (see docs/FORMAT.md, "How a cache is bound to its
/// log").
///
/// A device number can change across reboots on some file systems (network and overlay mounts):
/// the caches are then rebuilt once, which costs a read of the log, never a wrong answer.
struct LogFileIdentity: Equatable, Sendable, CustomStringConvertible {
  var device: UInt64
  var inode: UInt64

  init(device: UInt64, inode: UInt64) {
    self.device = device
    self.inode = inode
  }

  init(_ status: FileDescriptor.Status) {
    self.init(device: status.device, inode: status.inode)
  }

  /// The identity of the file `file` has open.
  init(of file: FileDescriptor) throws(EngineError) {
    self.init(try file.status())
  }

  /// `device 2049 inode 1234`: how it is stored and shown.
  var description: String { "device \(device) inode \(inode)" }

  /// The identity in `text` as `description` writes it, `nil` for anything else.
  init?(text: some StringProtocol) {
    let words = text.split(separator: " ")
    guard words.count == 4, words[0] == "device", words[2] == "inode",
      let device = UInt64(words[1]), let inode = UInt64(words[3])
    else { return nil }
    self.init(device: device, inode: inode)
  }
}
