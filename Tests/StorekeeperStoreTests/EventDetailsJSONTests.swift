import Foundation
import Testing

@testable import StorekeeperStore

/// ``EventDetails/json`` writes what `JSONEncoder` would, without it.
@Suite("Event details as stored JSON")
struct EventDetailsJSONTests {
    /// Text that exercises every escape: quotes, backslashes, slashes, control characters,
    /// non-ASCII and U+0000.
    static let awkward = [
        "", "plain", "a\"b", "back\\slash", "a/b", "line\nbreak\ttab\r\u{8}\u{C}", "\u{0}\u{1}\u{1F}\u{7F}", "é ü 漢字 🙂", "</script>",
    ]
    static let amounts: [Decimal] = [0, 4.99, -12.5, Decimal(string: "0.000001")!, Decimal(string: "123456789012345678901234.5")!, 1_000_000]

    static func details(_ index: Int) -> EventDetails {
        func pick<T>(_ values: [T], _ salt: Int) -> T? {
            let slot = (index * 7 + salt * 13) % (values.count + 1)
            return slot == values.count ? nil : values[slot]
        }
        let dates = [Date(timeIntervalSince1970: 1_700_000_000), Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 4_102_444_800)]
        var details = EventDetails(
            from: pick(awkward, 1), to: pick(awkward, 2), productId: pick(awkward, 3), expiresDate: pick(dates, 4),
            transactionId: pick(awkward, 5), source: pick(awkward, 6), notificationType: pick(awkward, 7), subtype: pick(awkward, 8),
            notificationUUID: pick(awkward, 9), inboxId: pick(awkward, 10), version: pick(awkward, 11), policy: pick(awkward, 12),
            deadline: pick(dates, 13), refundPreference: pick(awkward, 14), reason: pick(awkward, 15))
        details.eventId = pick(awkward, 16)
        details.environment = pick(awkward, 17)
        details.storefront = pick(awkward, 18)
        details.entitlements = pick([[], ["pro"], ["pro", "a\"b", "é"]], 19)
        details.periodType = pick(awkward, 20)
        details.price = pick(amounts, 21)
        details.currency = pick(awkward, 22)
        details.priceInReportingCurrency = pick(amounts, 23)
        details.reportingCurrency = pick(awkward, 24)
        details.proceeds = pick(amounts, 25)
        details.expirationReason = pick(awkward, 26)
        details.priceIncreaseConsent = pick(awkward, 27)
        details.previousProductId = pick(awkward, 28)
        details.problemKind = pick(awkward, 29)
        details.evidence = pick([[:], ["b": "2", "a": "1", "Z": "\n"], ["key\"": "v/\\"]], 30)
        details.experimentId = pick(awkward, 31)
        details.variant = pick(awkward, 32)
        details.placement = pick(awkward, 33)
        details.offeringId = pick(awkward, 34)
        return details
    }

    @Test("the written JSON is JSONEncoder's, byte for byte, for every field, escape and amount, and reads back the same")
    func sameAsEncoder() {
        for index in 0..<400 {
            let details = Self.details(index)
            #expect(details.json == details.encodedJSON, "details \(index)")
            #expect(EventDetails(json: details.json) == details, "details \(index)")
        }
        #expect(EventDetails().json == "{}")
    }

    @Test("every field of EventDetails is written: one with all of them set names each")
    func everyField() throws {
        let labels = Mirror(reflecting: EventDetails()).children.compactMap(\.label)
        var object: [String: Any] = [:]
        for label in labels { object[label] = "v" }
        object["entitlements"] = ["pro"]
        object["evidence"] = ["k": "v"]
        for amount in ["price", "priceInReportingCurrency", "proceeds"] { object[amount] = 1.5 }
        for date in ["expiresDate", "deadline"] { object[date] = "2026-01-01T00:00:00Z" }
        let complete = EventDetails(json: String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self))
        let written = complete.json
        for label in labels { #expect(written.contains("\"\(label)\":"), "\(label)") }
        #expect(written == complete.encodedJSON)
    }
}

/// ``StoreCoding/encode(_:)-(String:String)`` writes a map of strings (a notification's
/// headers) as `JSONEncoder` would.
@Suite("String maps as stored JSON")
struct StringMapJSONTests {
    @Test("the written JSON is JSONEncoder's, byte for byte, for every escape and key order")
    func sameAsEncoder() throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let words = EventDetailsJSONTests.awkward
        for index in 0..<200 {
            var map: [String: String] = [:]
            for member in 0..<(index % 5) { map[words[(index + member * 3) % words.count] + "\(member)"] = words[(index * 7 + member) % words.count] }
            let expected = String(decoding: try encoder.encode(map), as: UTF8.self)
            #expect(StoreCoding.encode(map) == expected, "map \(index)")
            #expect(try JSONDecoder().decode([String: String].self, from: Data(StoreCoding.encode(map).utf8)) == map)
        }
    }
}
