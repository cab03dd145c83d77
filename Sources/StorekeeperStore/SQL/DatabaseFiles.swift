import Foundation

/// Keeps an SQLite database private to the user running the server: a data directory the
/// store creates is `0700`, and the database file with its `-wal` and `-shm` companions is
/// `0600` (SQLite gives the companions the main file's mode, so the file is created with it).
enum DatabaseFiles {
    /// Creates the database's directory (`0700`) and an empty database file (`0600`) when
    /// missing, and takes group and other access away from an existing file.
    static func prepare(path: String) throws {
        let manager = FileManager.default
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        if !manager.fileExists(atPath: directory) {
            do {
                try manager.createDirectory(atPath: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            } catch {
                throw StoreError(code: .unavailable, message: "cannot create the data directory \(directory)")
            }
        }
        if !manager.fileExists(atPath: path) {
            guard manager.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw StoreError(code: .unavailable, message: "cannot create the database file \(path)")
            }
        }
        restrict(path: path)
    }

    /// Sets the database file and its companions to `0600` where they exist.
    static func restrict(path: String) {
        for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
            try? FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file)
        }
    }
}
