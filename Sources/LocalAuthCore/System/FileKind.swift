import CSyscalls

/// The type of file a `stat` result describes (the S_IFMT bits of st_mode).
package enum FileKind: Equatable {
  case regular, directory, symbolicLink, fifo, other

  package init(mode: mode_t) {
    // The S_IF* macros import as Int32 from C and as mode_t through Glibc's overlay: convert both ways alike.
    switch mode & mode_t(S_IFMT) {
    case mode_t(S_IFREG): self = .regular
    case mode_t(S_IFDIR): self = .directory
    case mode_t(S_IFLNK): self = .symbolicLink
    case mode_t(S_IFIFO): self = .fifo
    default: self = .other
    }
  }
}

extension stat {
  /// The type of the file this result describes.
  var kind: FileKind { FileKind(mode: st_mode) }
}
