import Foundation

/// Reads the files under `Fixtures/`.
enum Fixture {
    static func url(_ name: String) throws -> URL {
        guard let base = Bundle.module.url(forResource: "Fixtures", withExtension: nil) else {
            throw Missing(name: "Fixtures")
        }
        return base.appendingPathComponent(name)
    }

    static func data(_ name: String) throws -> Data {
        try Data(contentsOf: url(name))
    }

    static func model(_ name: String) throws -> Data {
        try data("models/\(name).json")
    }

    static func signingKeyPEM() throws -> String {
        String(decoding: try data("testSigningKey.p8"), as: UTF8.self)
    }

    struct Missing: Error {
        var name: String
    }
}
