import Foundation
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock (`flock`) on a lock file beside an SQLite database, which tells a restore
/// that a server is using the database.
///
/// A server holds it shared from before its store opens until the store closes: servers
/// (and a server beside itself while a previous one shuts down) never exclude each other.
/// `storekeeper restore` takes it exclusively and without waiting: it fails while any server
/// holds it, and a server starting during a restore fails to take it and refuses to start.
/// The kernel lets go of it when the process ends however it ends (`SIGKILL` included), so a
/// crashed server never leaves a stale lock behind. Local file systems only: `flock` over NFS
/// may not exclude another machine.
public final class DataDirectoryLock: Sendable {
    /// How the lock is held.
    public enum Mode: Sendable {
        /// A server using the database (many at once).
        case shared
        /// A restore replacing it (alone).
        case exclusive
    }

    /// The lock file: it stays in the directory (removing it while held would let a second
    /// holder lock a new file of the same name).
    public let path: String
    /// The open lock file while the lock is held.
    private let descriptor: Mutex<Int32?>

    /// The lock file beside the database at `databasePath`: `storekeeper.lock` for
    /// `storekeeper.sqlite`.
    public static func lockFile(forDatabase databasePath: String) -> String {
        URL(fileURLWithPath: databasePath).deletingPathExtension().appendingPathExtension("lock").path
    }

    /// Takes the lock for the database at `databasePath` without waiting: ``StoreError/Code/unavailable``
    /// when another process holds it in a conflicting mode or the file cannot be opened.
    public init(databasePath: String, mode: Mode) throws {
        path = Self.lockFile(forDatabase: databasePath)
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        // A server locks before its store creates the directory (a restore must not find the
        // database half opened by a server that is about to refuse to start).
        if mode == .shared, !FileManager.default.fileExists(atPath: directory) {
            try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else {
            throw StoreError(code: .unavailable, message: "cannot open the lock file \(path): \(String(cString: strerror(errno)))")
        }
        while flock(fd, (mode == .shared ? LOCK_SH : LOCK_EX) | LOCK_NB) != 0 {
            let failure = errno
            if failure == EINTR { continue }
            close(fd)
            if failure == EWOULDBLOCK {
                throw StoreError(
                    code: .unavailable,
                    message: mode == .shared
                        ? "a restore is replacing the database in \(directory) (it holds \(path)); start the server once it ends"
                        : "a server is running on \(directory) (it holds \(path)); stop it first")
            }
            throw StoreError(code: .unavailable, message: "cannot lock \(path): \(String(cString: strerror(failure)))")
        }
        descriptor = Mutex(fd)
    }

    /// Lets go of the lock (closing the file does); later calls do nothing.
    public func release() {
        descriptor.withLock { fd in
            if let open = fd { close(open) }
            fd = nil
        }
    }

    deinit {
        release()
    }
}
