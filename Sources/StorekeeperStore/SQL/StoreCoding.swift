import Foundation
import SQLKit

/// How the store writes JSON columns and reads rows back.
enum StoreCoding {
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .millisecondsSince1970
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// What ``encode(_:)`` gives for a map of strings (keys sorted, slashes unescaped), written
    /// directly: every notification received stores its headers so, and an encoder costs more
    /// than the rest of the row.
    static func encode(_ map: [String: String]) -> String {
        "{" + map.sorted { $0.key < $1.key }.map { quoted($0.key) + ":" + quoted($0.value) }.joined(separator: ",") + "}"
    }

    /// `text` as a JSON string, escaped as `JSONEncoder` escapes it (slashes left alone).
    static func quoted(_ text: String) -> String {
        var out = [UInt8]()
        out.reserveCapacity(text.utf8.count + 2)
        out.append(UInt8(ascii: "\""))
        let hex = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): out += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): out += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x08: out += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: out += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0x0A: out += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: out += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: out += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0..<0x20: out += Array("\\u00".utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            default: out.append(byte)
            }
        }
        out.append(UInt8(ascii: "\""))
        return String(decoding: out, as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String, column: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        do {
            return try decoder.decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError(code: .corruptRow, message: "column \(column) does not decode: \(error)")
        }
    }
}

extension SQLRow {
    func string(_ column: String) throws -> String { try decode(column: column, as: String.self) }
    func optionalString(_ column: String) throws -> String? { try decode(column: column, as: String?.self) }
    func int64(_ column: String) throws -> Int64 { try decode(column: column, as: Int64.self) }
    func optionalInt64(_ column: String) throws -> Int64? { try decode(column: column, as: Int64?.self) }
    func int(_ column: String) throws -> Int { Int(try decode(column: column, as: Int64.self)) }
    func date(_ column: String) throws -> Date { Date(millisecondsSince1970: try int64(column)) }
    func optionalDate(_ column: String) throws -> Date? { try optionalInt64(column).map(Date.init(millisecondsSince1970:)) }
}
