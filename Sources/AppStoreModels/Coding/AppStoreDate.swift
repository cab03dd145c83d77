import Foundation

/// Codes an optional `Date` as Apple does: a JSON number of milliseconds since 1970.
///
/// Apple's payloads carry integer milliseconds; StoreKit Testing in Xcode emits fractional ones.
/// With this wrapper a model decodes with a plain `JSONDecoder()` and encodes with a plain
/// `JSONEncoder()`, whatever date strategy the coder is configured with. Whole milliseconds encode
/// as JSON integers, fractional ones (Xcode) keep their fraction, so re-encoding a payload gives
/// back the same numbers. An absent key decodes to `nil` and a `nil` date is left out on encoding
/// (no `null` is written), so absent fields stay absent.
@propertyWrapper
public struct AppStoreDate: Hashable, Sendable, Codable {
    /// The date, or `nil` when the field is absent.
    public var wrappedValue: Date?

    /// Wraps a date (or its absence).
    public init(wrappedValue: Date?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        wrappedValue = container.decodeNil() ? nil : Date(appStoreMilliseconds: try container.decode(Double.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let date = wrappedValue {
            try date.encodeAppStoreMilliseconds(into: &container)
        } else {
            try container.encodeNil()
        }
    }
}

/// Codes an optional `Date` as whole milliseconds since 1970, truncating any sub-millisecond part
/// on encoding, as Apple's App Store Server API expects in request bodies.
///
/// Decoding is as lenient as ``AppStoreDate`` (integer or fractional milliseconds); absent keys
/// stay absent.
@propertyWrapper
public struct AppStoreRequestDate: Hashable, Sendable, Codable {
    /// The date, or `nil` when the field is absent.
    public var wrappedValue: Date?

    /// Wraps a date (or its absence).
    public init(wrappedValue: Date?) {
        self.wrappedValue = wrappedValue
    }

    public init(from decoder: any Decoder) throws {
        wrappedValue = try AppStoreDate(from: decoder).wrappedValue
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if let date = wrappedValue {
            try container.encode(date.appStoreMilliseconds)
        } else {
            try container.encodeNil()
        }
    }
}

extension Date {
    /// Encodes whole milliseconds as an integer and fractional ones as a floating-point number.
    fileprivate func encodeAppStoreMilliseconds(into container: inout some SingleValueEncodingContainer) throws {
        let milliseconds = appStoreMillisecondsValue
        if let whole = Int64(exactly: milliseconds) {
            try container.encode(whole)
        } else {
            try container.encode(milliseconds)
        }
    }

    /// The keyed counterpart of ``encodeAppStoreMilliseconds(into:)``.
    fileprivate func encodeAppStoreMilliseconds<Key: CodingKey>(
        into container: inout KeyedEncodingContainer<Key>, forKey key: Key
    ) throws {
        let milliseconds = appStoreMillisecondsValue
        if let whole = Int64(exactly: milliseconds) {
            try container.encode(whole, forKey: key)
        } else {
            try container.encode(milliseconds, forKey: key)
        }
    }
}

// Synthesized `Codable` calls these overloads for wrapped properties: they make an absent or
// `null` key decode to `nil`, and leave the key out when the date is `nil`.
extension KeyedDecodingContainer {
    /// Decodes an ``AppStoreDate`` field; an absent or `null` key gives a `nil` date.
    public func decode(_ type: AppStoreDate.Type, forKey key: Key) throws -> AppStoreDate {
        let milliseconds = try decodeIfPresent(Double.self, forKey: key)
        return AppStoreDate(wrappedValue: milliseconds.map(Date.init(appStoreMilliseconds:)))
    }

    /// Decodes an ``AppStoreRequestDate`` field; an absent or `null` key gives a `nil` date.
    public func decode(_ type: AppStoreRequestDate.Type, forKey key: Key) throws -> AppStoreRequestDate {
        let milliseconds = try decodeIfPresent(Double.self, forKey: key)
        return AppStoreRequestDate(wrappedValue: milliseconds.map(Date.init(appStoreMilliseconds:)))
    }
}

extension KeyedEncodingContainer {
    /// Encodes an ``AppStoreDate`` field as milliseconds, leaving the key out when the date is `nil`.
    public mutating func encode(_ value: AppStoreDate, forKey key: Key) throws {
        guard let date = value.wrappedValue else { return }
        try date.encodeAppStoreMilliseconds(into: &self, forKey: key)
    }

    /// Encodes an ``AppStoreRequestDate`` field as whole milliseconds, leaving the key out when the date is `nil`.
    public mutating func encode(_ value: AppStoreRequestDate, forKey key: Key) throws {
        guard let date = value.wrappedValue else { return }
        try encode(date.appStoreMilliseconds, forKey: key)
    }
}
