import Foundation

/// A RevenueCat export, read row by row: either RevenueCat's scheduled data export (delimited
/// text with a header row, `;` as RevenueCat writes it or `,`, gzip or not), or a plain list of
/// `app_user_id,original_transaction_id[,alias1|alias2…]` lines without a header.
///
/// The scheduled export's columns used here (RevenueCat's "Transaction Format"; others are
/// ignored, any order): `rc_original_app_user_id`, `rc_last_seen_app_user_id_alias`, `store`
/// (`app_store`, `play_store`, `stripe`, `promotional`, …), `original_store_transaction_id`,
/// `store_transaction_id`, `product_identifier`, `entitlement_identifiers` (`["a","b"]`, or
/// `{a,b}` before version 4), `start_time`, `end_time`, `effective_end_time`, `refunded_at`
/// (`2023-01-01 08:27:06`, UTC), `is_sandbox`, `is_auto_renewable` (`true`/`false`, or `t`/`f`
/// before version 4). Only `rc_original_app_user_id` and `store` are required.
struct RevenueCatExport {
    enum Format: String, Sendable, Codable {
        case scheduledExport = "scheduled_export"
        case plainList = "plain_list"
    }

    /// One transaction row (or one line of a plain list).
    struct Row: Sendable, Hashable {
        var line: Int
        /// `rc_original_app_user_id`: the customer's id in Storekeeper.
        var appUserId: String
        /// Other app user ids of the customer (`rc_last_seen_app_user_id_alias`, the list's aliases).
        var aliases: [String]
        var store: String
        var originalTransactionId: String?
        var transactionId: String?
        var productId: String?
        /// `nil` when the export does not say (the column is absent or empty).
        var entitlements: [String]?
        var startTime: Date?
        var endTime: Date?
        var effectiveEndTime: Date?
        var refundedAt: Date?
        var isSandbox: Bool?
        var isAutoRenewable: Bool?

        var isAppStore: Bool { store == "app_store" }
    }

    /// A row that cannot be read, with its line.
    struct Malformed: Sendable, Hashable, Codable {
        var line: Int
        var reason: String
    }

    enum Entry: Sendable, Hashable {
        case row(Row)
        case malformed(Malformed)
    }

    /// A file that is not an export at all (unreadable, empty, corrupt gzip).
    struct Unreadable: Error, CustomStringConvertible {
        var description: String
    }

    private let bytes: ExportFileBytes
    private var records: DelimitedRecords
    private var queue: [DelimitedRecords.Record] = []
    private var queueIndex = 0
    private var ended = false
    private(set) var format: Format = .plainList
    private var columns: [String: Int] = [:]
    private var headerCount = 0
    var isCompressed: Bool { bytes.isCompressed }

    /// Opens the file and reads its first line to tell the format and the delimiter.
    init(path: String) throws(Unreadable) {
        do {
            bytes = try ExportFileBytes(path: path)
        } catch {
            throw Unreadable(description: error.description)
        }
        records = DelimitedRecords(delimiter: UInt8(ascii: ","))
        var head: [UInt8] = []
        // The first line decides the delimiter: the one that names RevenueCat's columns.
        while !head.contains(DelimitedRecords.newline) {
            guard let chunk = try nextBytes() else { break }
            head += chunk
        }
        if head.starts(with: [0xef, 0xbb, 0xbf]) { head.removeFirst(3) }  // a byte order mark
        guard head.contains(where: { !($0 == 0x20 || $0 == 0x0a || $0 == 0x0d || $0 == 0x09) }) else {
            throw Unreadable(description: "\(path) is empty")
        }
        let firstLine = head.prefix { $0 != DelimitedRecords.newline }
        let semicolons = firstLine.count { $0 == UInt8(ascii: ";") }
        let commas = firstLine.count { $0 == UInt8(ascii: ",") }
        records.delimiter = semicolons > commas ? UInt8(ascii: ";") : UInt8(ascii: ",")
        feed(head)
        if let first = queue.first, first.fields.contains("rc_original_app_user_id") {
            format = .scheduledExport
            headerCount = first.fields.count
            for (index, name) in first.fields.enumerated() {
                let name = name.trimmingCharacters(in: .whitespaces)
                if columns[name] == nil { columns[name] = index }
            }
            queueIndex = 1
        }
    }

    private func nextBytes() throws(Unreadable) -> [UInt8]? {
        do {
            return try bytes.next()
        } catch {
            throw Unreadable(description: error.description)
        }
    }

    private mutating func feed(_ chunk: [UInt8]) {
        records.feed(chunk) { queue.append($0) }
    }

    /// The next row, or `nil` at the end of the file.
    mutating func next() throws(Unreadable) -> Entry? {
        while queueIndex >= queue.count {
            queue.removeAll(keepingCapacity: true)
            queueIndex = 0
            if ended { return nil }
            if let chunk = try nextBytes() {
                feed(chunk)
            } else {
                ended = true
                records.finish { queue.append($0) }
            }
        }
        let record = queue[queueIndex]
        queueIndex += 1
        if let problem = record.malformed { return .malformed(Malformed(line: record.line, reason: problem)) }
        switch format {
        case .scheduledExport: return exportRow(record)
        case .plainList: return listRow(record)
        }
    }

    private func exportRow(_ record: DelimitedRecords.Record) -> Entry {
        let header = headerCount
        guard record.fields.count == header else {
            return .malformed(Malformed(line: record.line, reason: "\(record.fields.count) fields where the header has \(header)"))
        }
        func value(_ name: String) -> String? {
            guard let index = columns[name] else { return nil }
            let text = record.fields[index].trimmingCharacters(in: .whitespaces)
            return text.isEmpty || text.lowercased() == "null" ? nil : text
        }
        guard let user = value("rc_original_app_user_id") else {
            return .malformed(Malformed(line: record.line, reason: "no rc_original_app_user_id"))
        }
        guard let store = value("store") else { return .malformed(Malformed(line: record.line, reason: "no store")) }
        var row = Row(line: record.line, appUserId: user, aliases: [], store: store)
        if let alias = value("rc_last_seen_app_user_id_alias"), alias != user { row.aliases = [alias] }
        row.originalTransactionId = value("original_store_transaction_id")
        row.transactionId = value("store_transaction_id")
        row.productId = value("product_identifier")
        row.entitlements = value("entitlement_identifiers").map(Self.list)
        for (name, path) in [
            ("start_time", \Row.startTime), ("end_time", \Row.endTime), ("effective_end_time", \Row.effectiveEndTime),
            ("refunded_at", \Row.refundedAt),
        ] {
            guard let text = value(name) else { continue }
            guard let date = Self.date(text) else {
                return .malformed(Malformed(line: record.line, reason: "\(name) \(text.prefix(40)) is not a date"))
            }
            row[keyPath: path] = date
        }
        row.isSandbox = value("is_sandbox").flatMap(Self.bool)
        row.isAutoRenewable = value("is_auto_renewable").flatMap(Self.bool)
        if row.isAppStore {
            guard let chain = row.originalTransactionId ?? row.transactionId, Self.isTransactionId(chain) else {
                return .malformed(Malformed(line: record.line, reason: "an App Store row without a numeric original_store_transaction_id"))
            }
            row.originalTransactionId = chain
        }
        return .row(row)
    }

    private func listRow(_ record: DelimitedRecords.Record) -> Entry {
        let fields = record.fields.map { $0.trimmingCharacters(in: .whitespaces) }
        guard (2...3).contains(fields.count), !fields[0].isEmpty else {
            return .malformed(Malformed(line: record.line, reason: "expected app_user_id,original_transaction_id[,alias1|alias2…]"))
        }
        guard Self.isTransactionId(fields[1]) else {
            return .malformed(Malformed(line: record.line, reason: "\(fields[1].prefix(40)) is not a transaction id"))
        }
        let aliases = fields.count == 3 ? fields[2].split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) } : []
        return .row(
            Row(
                line: record.line, appUserId: fields[0], aliases: aliases.filter { !$0.isEmpty && $0 != fields[0] }, store: "app_store",
                originalTransactionId: fields[1]))
    }

    static func isTransactionId(_ text: String) -> Bool {
        (1...64).contains(text.utf8.count) && text.utf8.allSatisfy { $0 >= 0x30 && $0 <= 0x39 }
    }

    /// `["a","b"]` (version 4 on), `{a,b}` (earlier), or a bare `a,b`.
    static func list(_ text: String) -> [String] {
        var inner = Substring(text)
        if let first = inner.first, let last = inner.last, (first == "[" && last == "]") || (first == "{" && last == "}") {
            inner = inner.dropFirst().dropLast()
        }
        return inner.split(separator: ",").map { $0.trimmingCharacters(in: CharacterSet(charactersIn: "\" ")) }.filter { !$0.isEmpty }
    }

    static func bool(_ text: String) -> Bool? {
        switch text.lowercased() {
        case "true", "t", "1": true
        case "false", "f", "0": false
        default: nil
        }
    }

    /// `2023-01-01 08:27:06` (RevenueCat's UTC times), with optional fractional seconds, a `T`
    /// instead of the space and a `Z` or `+00:00` suffix.
    static func date(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 19 else { return nil }
        func number(_ range: Range<Int>) -> Int? {
            var value = 0
            for index in range {
                let byte = bytes[index]
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == 0x20 || bytes[10] == UInt8(ascii: "T"),
            bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"),
            let year = number(0..<4), let month = number(5..<7), let day = number(8..<10), let hour = number(11..<13),
            let minute = number(14..<16), let second = number(17..<19), (1...12).contains(month), (1...31).contains(day), hour < 24,
            minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        var index = 19
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            index += 1
            var scale = 0.1
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                fraction += Double(bytes[index] - 0x30) * scale
                scale /= 10
                index += 1
            }
        }
        let rest = String(decoding: bytes[index...], as: UTF8.self)
        guard ["", "Z", "+00:00", "+00", " UTC"].contains(rest) else { return nil }
        // Days from 1970-01-01 in the proleptic Gregorian calendar.
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        let seconds = Double(days * 86_400 + hour * 3_600 + minute * 60 + second) + fraction
        return Date(timeIntervalSince1970: seconds)
    }

    /// The export's form of a date: `2023-01-01 08:27:06` in UTC.
    static func format(_ date: Date) -> String {
        let total = Int(date.timeIntervalSince1970.rounded(.down))
        let days = total >= 0 ? total / 86_400 : (total - 86_399) / 86_400
        let secondOfDay = total - days * 86_400
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        func two(_ value: Int) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(year)-\(two(month))-\(two(day)) \(two(secondOfDay / 3_600)):\(two(secondOfDay % 3_600 / 60)):\(two(secondOfDay % 60))"
    }
}
