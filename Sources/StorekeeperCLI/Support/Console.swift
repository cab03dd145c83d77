import Foundation

/// Standard output and error for the commands. A closed pipe (`storekeeper demo | head`) ends
/// the output quietly instead of trapping, as `FileHandle.write(_:)` would.
enum Console {
    static func out(_ data: Data) {
        try? FileHandle.standardOutput.write(contentsOf: data)
    }

    static func err(_ data: Data) {
        try? FileHandle.standardError.write(contentsOf: data)
    }
}
