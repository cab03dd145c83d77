import Foundation

/// The one way the server writes and reads instants as text: ISO 8601 in UTC with
/// milliseconds (`2026-03-02T10:00:00.000Z`), read back with or without the fraction.
public enum Timestamp {
    public static func string(from date: Date) -> String {
        date.formatted(formatStyle)
    }

    public static func date(from text: String) -> Date? {
        if let date = try? formatStyle.parse(text) { return date }
        return try? Date.ISO8601FormatStyle().parse(text)
    }

    private static let formatStyle = Date.ISO8601FormatStyle(includingFractionalSeconds: true)
}

extension Date {
    /// Milliseconds since 1970, rounded: how the store keeps instants, how job keys and
    /// ledger keys name them, and how Apple's JSON dates count.
    public var millisecondsSince1970: Int64 { Int64((timeIntervalSince1970 * 1000).rounded()) }

    public init(millisecondsSince1970 milliseconds: Int64) {
        self.init(timeIntervalSince1970: Double(milliseconds) / 1000)
    }
}

extension JSONEncoder.DateEncodingStrategy {
    /// Instants as ``Timestamp`` strings: how every JSON the server writes for people and
    /// programs (API answers, event details, offerings, dashboard pages) carries a date.
    /// Foundation's default would write seconds since 2001, which no reader expects.
    public static var timestamp: Self {
        .custom { date, encoder in
            var container = encoder.singleValueContainer()
            try container.encode(Timestamp.string(from: date))
        }
    }
}

extension JSONDecoder.DateDecodingStrategy {
    /// Instants from ``Timestamp`` strings (ISO 8601, with or without a fraction).
    public static var timestamp: Self {
        .custom { decoder in
            let container = try decoder.singleValueContainer()
            let text = try container.decode(String.self)
            guard let date = Timestamp.date(from: text) else {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "\(text) is not an ISO 8601 instant")
            }
            return date
        }
    }
}
