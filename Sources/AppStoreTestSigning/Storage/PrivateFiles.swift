import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Files only their owner may read, for the local tools' secrets (certificate authorities'
/// private keys, In-App Purchase keys, configurations holding API keys): folders `0700` and
/// files `0600`, created with those modes from the start, so that no other user of the machine
/// can read a secret at any moment, and written whole (a new file moved over the old one).
public enum PrivateFiles {
    /// Why a folder or file could not be made.
    public struct WriteError: Error, Hashable, Sendable, CustomStringConvertible {
        public var path: String
        public var reason: String

        public var description: String { "cannot write \(path): \(reason)" }
    }

    /// Creates `directory` and its missing parents `0700`; an existing one loses group and
    /// other access.
    public static func createDirectory(_ directory: URL) throws {
        let path = directory.standardizedFileURL.path
        var partial = path.hasPrefix("/") ? "" : "."
        var status = stat()
        for component in path.split(separator: "/") {
            partial += "/" + component
            if stat(partial, &status) != 0, mkdir(partial, 0o700) != 0, errno != EEXIST {
                throw WriteError(path: partial, reason: String(cString: strerror(errno)))
            }
        }
        guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
            throw WriteError(path: path, reason: "not a folder")
        }
        if status.st_mode & 0o077 != 0, chmod(path, mode_t(status.st_mode & 0o700)) != 0 {
            throw WriteError(path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Writes `data` to `url` (its folder must exist) as a new `0600` file, then moves it over
    /// whatever was there.
    public static func write(_ data: Data, to url: URL) throws {
        let path = url.path
        let temporary = url.deletingLastPathComponent().appendingPathComponent(".\(url.lastPathComponent).\(UUID().uuidString).tmp").path
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw WriteError(path: path, reason: String(cString: strerror(errno))) }
        var written = 0
        let failure: String? = data.withUnsafeBytes { buffer in
            while written < buffer.count {
                #if canImport(Glibc)
                let count = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                #else
                let count = Darwin.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                #endif
                if count < 0, errno != EINTR { return String(cString: strerror(errno)) }
                written += max(count, 0)
            }
            return nil
        }
        let closed = close(descriptor) == 0
        if let failure = failure ?? (closed ? nil : String(cString: strerror(errno))) {
            unlink(temporary)
            throw WriteError(path: path, reason: failure)
        }
        guard rename(temporary, path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporary)
            throw WriteError(path: path, reason: reason)
        }
    }

    /// Takes group and other access away from an existing file (one an earlier version wrote
    /// readable by others).
    public static func restrict(_ url: URL) {
        var status = stat()
        guard stat(url.path, &status) == 0, status.st_mode & 0o077 != 0 else { return }
        chmod(url.path, mode_t(status.st_mode & 0o700))
    }
}
