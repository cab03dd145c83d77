import Foundation
import Testing

/// Loads the JSON fixtures under `Fixtures/` and compares JSON documents structurally.
enum ModelFixtures {
    struct Missing: Error, CustomStringConvertible {
        let path: String
        var description: String { "fixture not found: \(path)" }
    }

    /// The bytes of `Fixtures/<folder>/<name>.json`.
    static func data(_ name: String, folder: String = "models") throws -> Data {
        guard let url = Bundle.module.url(forResource: name, withExtension: "json", subdirectory: "Fixtures/\(folder)")
        else {
            throw Missing(path: "Fixtures/\(folder)/\(name).json")
        }
        return try Data(contentsOf: url)
    }

    /// Every `.json` file name (without extension) in `Fixtures/<folder>`.
    static func names(folder: String = "models") throws -> [String] {
        guard let url = Bundle.module.url(forResource: folder, withExtension: nil, subdirectory: "Fixtures") else {
            throw Missing(path: "Fixtures/\(folder)")
        }
        return try FileManager.default.contentsOfDirectory(atPath: url.path)
            .filter { $0.hasSuffix(".json") }
            .map { String($0.dropLast(".json".count)) }
            .sorted()
    }

    /// Decodes a fixture with a plain `JSONDecoder()`.
    static func decode<T: Decodable>(_ type: T.Type, from name: String, folder: String = "models") throws -> T {
        try JSONDecoder().decode(type, from: data(name, folder: folder))
    }

    /// A JSON document parsed with `JSONSerialization`, for structural comparison.
    static func tree(_ data: Data) throws -> Any {
        try JSONSerialization.jsonObject(with: data, options: [.fragmentsAllowed])
    }

    /// Where two JSON trees differ, or `nil` if they are equivalent. Numbers are equal when they
    /// differ by less than 0.01 (fractional milliseconds); booleans and numbers are not mixed.
    static func difference(_ lhs: Any, _ rhs: Any, path: String = "$") -> String? {
        switch (lhs, rhs) {
        case (let l as [String: Any], let r as [String: Any]):
            if Set(l.keys) != Set(r.keys) {
                return "\(path): keys \(l.keys.sorted()) vs \(r.keys.sorted())"
            }
            for key in l.keys.sorted() {
                if let difference = difference(l[key]!, r[key]!, path: "\(path).\(key)") { return difference }
            }
            return nil
        case (let l as [Any], let r as [Any]):
            if l.count != r.count { return "\(path): \(l.count) vs \(r.count) elements" }
            for (index, pair) in zip(l, r).enumerated() {
                if let difference = difference(pair.0, pair.1, path: "\(path)[\(index)]") { return difference }
            }
            return nil
        case (let l as String, let r as String):
            return l == r ? nil : "\(path): \"\(l)\" vs \"\(r)\""
        case (let l as NSNumber, let r as NSNumber):
            if isBoolean(l) != isBoolean(r) { return "\(path): \(l) vs \(r) (boolean vs number)" }
            return abs(l.doubleValue - r.doubleValue) < 0.01 ? nil : "\(path): \(l) vs \(r)"
        case (is NSNull, is NSNull):
            return nil
        default:
            return "\(path): \(lhs) vs \(rhs)"
        }
    }

    private static func isBoolean(_ number: NSNumber) -> Bool {
        // JSONSerialization returns booleans as a distinct NSNumber subclass on every platform.
        String(describing: type(of: number)).contains("Boolean")
    }
}
