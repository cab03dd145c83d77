import Foundation

/// A coding key for Apple's snake_case legacy JSON (`verifyReceipt`, V1 notifications).
///
/// Legacy payloads mix strings, numbers and booleans for the same field and spread each date
/// over three keys, so their models code themselves through the lenient helpers below instead
/// of synthesized `Codable`.
struct LegacyCodingKey: CodingKey, Hashable {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ stringValue: String) {
        self.stringValue = stringValue
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        nil
    }
}

extension KeyedDecodingContainer where Key == LegacyCodingKey {
    /// A string, or a number or boolean written as its text; `nil` when absent, `null` or an object.
    func lenientString(_ name: String) -> String? {
        let key = LegacyCodingKey(name)
        guard contains(key), (try? decodeNil(forKey: key)) == false else { return nil }
        if let string = try? decode(String.self, forKey: key) { return string }
        if let integer = try? decode(Int64.self, forKey: key) { return String(integer) }
        if let double = try? decode(Double.self, forKey: key), double.isFinite {
            return double == double.rounded() && abs(double) < 9e18 ? String(Int64(double)) : String(double)
        }
        if let boolean = try? decode(Bool.self, forKey: key) { return boolean ? "true" : "false" }
        return nil
    }

    /// An integer sent as a JSON number or a decimal string; `nil` for anything else (`""`, masks).
    func lenientInt64(_ name: String) -> Int64? {
        guard let text = lenientString(name) else { return nil }
        return Int64(text)
    }

    /// A boolean sent as `true`/`false`, `"true"`/`"false"`, `1`/`0` or `"1"`/`"0"`.
    func lenientBool(_ name: String) -> Bool? {
        switch lenientString(name)?.lowercased() {
        case "true", "1", "yes": return true
        case "false", "0", "no": return false
        default: return nil
        }
    }

    /// The date spread over `<name>_ms`, `<name>` and (iOS 6) `<name>_formatted`.
    ///
    /// The milliseconds key wins; iOS 6 responses put milliseconds in `<name>` itself. Masked or
    /// empty values give `nil`.
    func legacyDate(_ name: String) -> Date? {
        if let text = lenientString(name + "_ms"), let date = LegacyDateFormat.date(fromMillisecondsString: text) {
            return date
        }
        if let text = lenientString(name) {
            if let date = LegacyDateFormat.date(fromMillisecondsString: text) { return date }
            if let date = LegacyDateFormat.date(fromGMTString: text) { return date }
        }
        if let text = lenientString(name + "_formatted") {
            return LegacyDateFormat.date(fromGMTString: text)
        }
        return nil
    }

    /// A nested value or list that may be absent, `null` or (V1 quirk) an empty object.
    func nested<T: Decodable>(_ type: T.Type, _ name: String) throws -> T? {
        let key = LegacyCodingKey(name)
        guard contains(key), try decodeNil(forKey: key) == false else { return nil }
        return try decode(T.self, forKey: key)
    }
}

extension KeyedEncodingContainer where Key == LegacyCodingKey {
    mutating func encodeString(_ value: String?, _ name: String) throws {
        guard let value else { return }
        try encode(value, forKey: LegacyCodingKey(name))
    }

    /// Writes an integer as Apple writes counts and ids in receipts: a decimal string.
    mutating func encodeIntegerString(_ value: Int64?, _ name: String) throws {
        guard let value else { return }
        try encode(String(value), forKey: LegacyCodingKey(name))
    }

    /// Writes an integer as a JSON number (`adam_id`, `app_item_id`, …).
    mutating func encodeNumber(_ value: Int64?, _ name: String) throws {
        guard let value else { return }
        try encode(value, forKey: LegacyCodingKey(name))
    }

    mutating func encodeBool(_ value: Bool?, _ name: String, style: LegacyBooleanStyle = .word) throws {
        guard let value else { return }
        let text: String
        switch style {
        case .word: text = value ? "true" : "false"
        case .digit: text = value ? "1" : "0"
        }
        try encode(text, forKey: LegacyCodingKey(name))
    }

    /// Writes the trio `<name>`, `<name>_ms`, `<name>_pst` in Apple's order.
    mutating func encodeLegacyDate(_ date: Date?, _ name: String) throws {
        guard let date else { return }
        try encode(LegacyDateFormat.gmtString(from: date), forKey: LegacyCodingKey(name))
        try encode(LegacyDateFormat.millisecondsString(from: date), forKey: LegacyCodingKey(name + "_ms"))
        try encode(LegacyDateFormat.pacificString(from: date), forKey: LegacyCodingKey(name + "_pst"))
    }

    mutating func encodeNested<T: Encodable>(_ value: T?, _ name: String) throws {
        guard let value else { return }
        try encode(value, forKey: LegacyCodingKey(name))
    }
}

extension KeyedDecodingContainer where Key == LegacyCodingKey {
    /// A list of transactions that older payloads send as a single object (iOS 6 responses,
    /// pre-2019 V1 notifications; sometimes an empty object `{}`, which gives an empty list).
    func transactionList(_ name: String) throws -> [LegacyInAppPurchase]? {
        let key = LegacyCodingKey(name)
        guard contains(key), try decodeNil(forKey: key) == false else { return nil }
        if let list = try? decode([LegacyInAppPurchase].self, forKey: key) { return list }
        let single = try decode(LegacyInAppPurchase.self, forKey: key)
        return single == LegacyInAppPurchase() ? [] : [single]
    }
}
