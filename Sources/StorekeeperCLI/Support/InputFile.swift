import Foundation

/// Reading the files the commands are given, with usage errors (exit 2) for unreadable ones.
enum InputFile {
    /// Upper bound on an input file: far above any signed payload or receipt Apple produces.
    static let maximumSize = 64 * 1024 * 1024

    static func read(_ path: String) throws(CLIFailure) -> Data {
        let data: Data
        do {
            data = try Data(contentsOf: URL(fileURLWithPath: path))
        } catch {
            throw .usage("cannot read \(path): \(error.localizedDescription)")
        }
        guard data.count <= maximumSize else {
            throw .usage("\(path) is larger than \(maximumSize) bytes")
        }
        return data
    }

    /// The compact JWS a file holds: the file is either the JWS itself (surrounding whitespace
    /// ignored) or a JSON object with a `signedPayload` member, as Apple posts notifications.
    static func compactJWS(in data: Data) -> String {
        if let object = try? JSONDecoder().decode(SignedPayloadBody.self, from: data) {
            return object.signedPayload
        }
        return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// One compact JWS per non-empty line.
    static func compactJWSLines(in data: Data) -> [String] {
        String(decoding: data, as: UTF8.self)
            .split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    private struct SignedPayloadBody: Decodable {
        var signedPayload: String
    }
}
