/// A value set Apple may extend at any time (notification types, environments, offer types, …).
///
/// Conforming types are `RawRepresentable` structs holding the exact raw value Apple sends
/// (a `String` or an integer), with the documented values as static constants. Decoding never
/// fails on an unknown value: it is kept as is and encodes back unchanged, so a new value Apple
/// introduces tomorrow flows through storage and webhooks instead of breaking decoding.
///
/// The protocol supplies `Codable` (a single raw value), `Hashable` and `CustomStringConvertible`
/// once; a value set only declares `rawValue`, `init(rawValue:)`, its constants and `known`.
public protocol AppStoreOpenValue: RawRepresentable, Hashable, Sendable, Codable, CustomStringConvertible
where RawValue: Hashable & Sendable & Codable & CustomStringConvertible {
    /// Wraps any raw value, known or not.
    init(rawValue: RawValue)

    /// The values Apple documents today, in Apple's order.
    static var known: [Self] { get }
}

extension AppStoreOpenValue {
    /// Whether this is one of the values Apple documents today.
    public var isKnown: Bool { Self.known.contains(self) }

    /// Decodes the raw value; any value of the right JSON type is accepted.
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(RawValue.self))
    }

    /// Encodes the raw value unchanged.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// The raw value as text, e.g. `SUBSCRIBED` or `1`.
    public var description: String { rawValue.description }
}
