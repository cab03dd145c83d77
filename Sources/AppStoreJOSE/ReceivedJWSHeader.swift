/// A received JWS's protected header, read as strictly as PyJWT (Apple's Python verifier)
/// reads it: the fields verification looks at, kept in the shape they came in. ``JWSHeader``
/// is the header this package writes.
///
/// Decoding fails (and verification reports `verification_failure`) when the header is not a
/// JSON object, `kid` is present but not a string, `crit` is present but not a non-empty list
/// naming only a present `b64`, or `b64` is `false` (unencoded payloads are never Apple's).
public struct ReceivedJWSHeader: Decodable, Sendable {
    /// `alg` when it is a string.
    public let algorithm: String?

    /// `x5c` as found, `nil` when absent.
    public let certificateChain: JSONShape?

    private struct Key: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }

        static let algorithm = Key(stringValue: "alg")
        static let certificateChain = Key(stringValue: "x5c")
        static let keyID = Key(stringValue: "kid")
        static let critical = Key(stringValue: "crit")
        static let base64 = Key(stringValue: "b64")
    }

    public struct Malformed: Error, CustomStringConvertible {
        public let description: String
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        if container.contains(.keyID), (try? container.decode(String.self, forKey: .keyID)) == nil {
            throw Malformed(description: "kid is not a string")
        }
        if container.contains(.critical) {
            guard let critical = try? container.decode([String].self, forKey: .critical), !critical.isEmpty else {
                throw Malformed(description: "crit is not a non-empty list of strings")
            }
            for name in critical where name != "b64" || !container.contains(.base64) {
                throw Malformed(description: "unsupported or missing critical header \(name)")
            }
        }
        if container.contains(.base64), (try? container.decode(Bool.self, forKey: .base64)) == false {
            throw Malformed(description: "b64 is false (unencoded payload)")
        }
        algorithm = try? container.decode(String.self, forKey: .algorithm)
        certificateChain = try container.decodeIfPresent(JSONShape.self, forKey: .certificateChain)
    }
}

/// Any JSON value, kept only as far as verification needs to judge an `x5c` header like Python.
public enum JSONShape: Decodable, Sendable {
    case null
    case scalar
    case string(String)
    case array([JSONShape])
    case object(count: Int)

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let elements = try? container.decode([JSONShape].self) {
            self = .array(elements)
        } else if let members = try? container.decode([String: JSONShape].self) {
            self = .object(count: members.count)
        } else {
            self = .scalar
        }
    }

    /// Python's `len()` of the value, or `nil` where Python's `len()` raises.
    public var pythonLength: Int? {
        switch self {
        case .null, .scalar: nil
        case .string(let text): text.unicodeScalars.count
        case .array(let elements): elements.count
        case .object(let count): count
        }
    }
}
