#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#elseif canImport(Musl)
  import Musl
#endif

extension SignedNote.Signer {
  /// Writes the private key (`privateKeyText` and a newline) to a new file at `path`, mode
  /// 0600, synced, its folder synced. An existing file is never overwritten: a key is not
  /// something to lose by a typo.
  /// - Throws: `EngineError.io` naming the step that failed (`EEXIST` when the file exists);
  ///   nothing is left behind on failure.
  public func writePrivateKey(to path: String) throws(EngineError) {
    let descriptor = PathOperations.createExclusive(path, permissions: 0o600)
    guard descriptor >= 0 else { throw .io(path: path, operation: "create", code: errno) }
    let file = FileDescriptor(rawValue: descriptor, path: path)
    do throws(EngineError) {
      // Whatever the umask: the key is for its owner only.
      _ = fchmod(descriptor, 0o600)
      let bytes = Array((privateKeyText + "\n").utf8)
      try bytes.withUnsafeBytes { buffer in
        Result { () throws(EngineError) in try file.writeAll(buffer) }
      }.get()
      try file.synchronize()
      file.close()
      try SidecarFile.synchronizeDirectory(containing: path)
    } catch {
      file.close()
      PathOperations.unlink(path)
      throw error
    }
  }
}
