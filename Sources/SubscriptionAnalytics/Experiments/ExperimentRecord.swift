import Foundation

/// An exposed customer's ``ExperimentOutcome`` as a store keeps it, maintained with the
/// customer's figures so that an experiment's results sum rows per variant instead of reading
/// every exposed customer's chains (docs/read-side.md, "Experiment outcomes").
///
/// It holds what does not depend on the moment of reading: the four flags, and per window the
/// money of the sales dated in `[exposure, exposure + days)`, unconverted (an exchange rate is
/// applied when the results are read). The definition also stops each window at now; the record
/// equals it while ``lastSale``, the latest sale it counts, is before now. A record whose last
/// sale is at or after now (a sale dated ahead of the server's clock) is read from the chains
/// instead.
public struct ExperimentRecord: Sendable, Hashable {
    public var trialStarted = false
    public var converted = false
    public var paying = false
    public var refunded = false
    /// Per window of days: revenue and proceeds of its sales, as their parts.
    public var windows: [Int: Window] = [:]
    public var lastSale: Date?

    /// The revenue and proceeds of one window's sales, each part's amounts added per currency
    /// and denominator (a ``MoneySum`` of these parts equals the sum of the sales).
    public struct Window: Sendable, Hashable {
        public var revenue: [MoneyPart] = []
        public var proceeds: [MoneyPart] = []

        public init(revenue: [MoneyPart] = [], proceeds: [MoneyPart] = []) {
            self.revenue = revenue
            self.proceeds = proceeds
        }
    }

    public init() {}

    /// The record of a customer exposed at `exposure` whose chains have the figures `chains`,
    /// for each window of `days`: ``SubscriptionAnalytics/experimentOutcome(of:exposure:now:days:)``
    /// without now.
    public init(of chains: [ChainFigures], exposure: Date, days windows: [Int]) {
        let after = chains.indices.flatMap { chain in chains[chain].purchases.filter { $0.at >= exposure }.map { (chain, $0) } }
        paying = after.contains { $0.1.paid }
        refunded = after.contains { $0.1.refunded }
        if let (trialChain, _) = after.filter({ $0.1.trial }).min(by: { $0.1.at < $1.1.at }) {
            trialStarted = true
            converted = after.contains { $0.0 == trialChain && $0.1.paid }
        }
        let longest = windows.max() ?? 0
        let sales = chains.flatMap { chain in
            chain.items.filter {
                $0.group.isEmpty && $0.kind == .sale && $0.at >= exposure && $0.at < exposure.addingTimeInterval(Double(longest) * 86_400)
            }
        }
        lastSale = sales.map(\.at).max()
        guard !sales.isEmpty else { return }
        for days in windows {
            let end = exposure.addingTimeInterval(Double(days) * 86_400)
            let counted = sales.filter { $0.at < end }
            self.windows[days] = Window(revenue: Self.merged(counted.compactMap(\.money)), proceeds: Self.merged(counted.compactMap(\.proceeds)))
        }
    }

    /// Parts added per currency and denominator, in that order (a sum that would leave 64 bits
    /// stays in two parts).
    static func merged(_ parts: [MoneyPart]) -> [MoneyPart] {
        var merged: [MoneyPart] = []
        for part in parts.sorted(by: { ($0.currency, $0.denominator) < ($1.currency, $1.denominator) }) {
            if let last = merged.last, last.currency == part.currency, last.denominator == part.denominator {
                let (sum, overflow) = last.amount.addingReportingOverflow(part.amount)
                if !overflow {
                    merged[merged.count - 1].amount = sum
                    continue
                }
            }
            merged.append(part)
        }
        return merged
    }

    /// Whether anything is recorded: a record that is not is the outcome of a customer who did
    /// nothing after exposure, which a store need not keep.
    public var isEmpty: Bool { self == ExperimentRecord() }
}

extension ExperimentRecord {
    /// The windows as one line, the same for equal windows (what a store groups records by):
    /// `<days>:<revenue parts>/<proceeds parts>` per window in the order of the days, separated
    /// by spaces, each part `<currency>:<amount>:<denominator>` and parts separated by commas;
    /// empty when no sale is counted.
    public var moneyText: String {
        windows.keys.sorted().map { days in
            let window = windows[days] ?? Window()
            func parts(_ parts: [MoneyPart]) -> String {
                parts.map { "\(Self.escaped($0.currency)):\($0.amount):\($0.denominator)" }.joined(separator: ",")
            }
            return "\(days):\(parts(window.revenue))/\(parts(window.proceeds))"
        }.joined(separator: " ")
    }

    /// The windows of ``moneyText``; nil when the text is not one. Read byte by byte (the
    /// separators are ASCII, and so is every escaped currency's text around them): an
    /// experiment's results read one text per variant and distinct money.
    public static func windows(fromMoneyText text: String) -> [Int: Window]? {
        var text = text
        return text.withUTF8 { bytes -> [Int: Window]? in
            var windows: [Int: Window] = [:]
            guard !bytes.isEmpty else { return windows }
            for field in bytes.split(separator: UInt8(ascii: " "), omittingEmptySubsequences: false) {
                guard let colon = field.firstIndex(of: UInt8(ascii: ":")), let days = integer(field[..<colon]).flatMap({ Int(exactly: $0) }),
                    windows[days] == nil
                else { return nil }
                let money = field[(colon + 1)...].split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: false)
                guard money.count == 2, let revenue = parts(money[0]), let proceeds = parts(money[1]) else { return nil }
                windows[days] = Window(revenue: revenue, proceeds: proceeds)
            }
            return windows
        }
    }

    private static func parts(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> [MoneyPart]? {
        guard !text.isEmpty else { return [] }
        var parts: [MoneyPart] = []
        for part in text.split(separator: UInt8(ascii: ","), omittingEmptySubsequences: false) {
            let fields = part.split(separator: UInt8(ascii: ":"), omittingEmptySubsequences: false)
            guard fields.count == 3, !fields[0].isEmpty, let amount = integer(fields[1]), let denominator = integer(fields[2]), denominator > 0
            else { return nil }
            parts.append(
                MoneyPart(currency: unescaped(Substring(String(decoding: fields[0], as: UTF8.self))), amount: amount, denominator: denominator))
        }
        return parts
    }

    /// A decimal integer with an optional sign, as `Int64(_:)` reads it; nil when it is not one
    /// or leaves 64 bits.
    static func integer(_ digits: Slice<UnsafeBufferPointer<UInt8>>) -> Int64? {
        var rest = digits[...]
        let negative = rest.first == UInt8(ascii: "-")
        if negative || rest.first == UInt8(ascii: "+") { rest = rest.dropFirst() }
        guard !rest.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in rest {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let digit = Int64(byte - UInt8(ascii: "0"))
            let (shifted, overflowed) = value.multipliedReportingOverflow(by: 10)
            let (next, overflowedAgain) = negative ? shifted.subtractingReportingOverflow(digit) : shifted.addingReportingOverflow(digit)
            guard !overflowed, !overflowedAgain else { return nil }
            value = next
        }
        return value
    }

    /// A currency with the characters the text separates by (and `%`) as `%` and two hex digits.
    static func escaped(_ currency: String) -> String {
        guard currency.utf8.contains(where: { Self.separators.contains($0) }) else { return currency }
        var bytes: [UInt8] = []
        for byte in currency.utf8 {
            if Self.separators.contains(byte) {
                bytes += Array(("%" + String(byte, radix: 16, uppercase: true)).utf8)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func unescaped(_ field: Substring) -> String {
        guard field.utf8.contains(UInt8(ascii: "%")) else { return String(field) }
        var bytes: [UInt8] = []
        var rest = field.utf8[...]
        while let byte = rest.popFirst() {
            if byte == UInt8(ascii: "%"), rest.count >= 2, let value = UInt8(String(decoding: rest.prefix(2), as: UTF8.self), radix: 16) {
                bytes.append(value)
                rest = rest.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// `%`, space, `,`, `/` and `:`.
    private static let separators: Set<UInt8> = [37, 32, 44, 47, 58]
}

extension SubscriptionAnalytics {
    /// The outcome a record holds, its money converted to the reporting currency: the
    /// definition's (``experimentOutcome(of:exposure:now:days:)``) whenever the record's last
    /// sale is before now.
    public func experimentOutcome(of record: ExperimentRecord, days windows: [Int]) -> ExperimentOutcome {
        var outcome = ExperimentOutcome()
        outcome.trialStarted = record.trialStarted
        outcome.converted = record.converted
        outcome.paying = record.paying
        outcome.refunded = record.refunded
        for days in windows {
            guard let window = record.windows[days] else {
                (outcome.revenue[days], outcome.proceeds[days]) = (0, 0)
                continue
            }
            var (revenue, proceeds) = (MoneySum(), MoneySum())
            for part in window.revenue { revenue.add(part) }
            for part in window.proceeds { proceeds.add(part) }
            outcome.revenue[days] = revenue.total(in: configuration).amount
            outcome.proceeds[days] = proceeds.total(in: configuration).amount
        }
        return outcome
    }
}
