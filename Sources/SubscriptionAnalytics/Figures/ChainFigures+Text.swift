import Foundation

/// The stored form of a chain's figures: a line per row, its fields separated by tabs, the groups
/// named once and referred to by number. The store writes and reads a document on every fact
/// of the chain (and the experiment results read one per exposed customer): this costs a
/// fraction of JSON's encoding and decoding.
///
/// ```
/// F1
/// g <group>                                     groups, numbered 0, 1, … in order
/// r <group> <from> <until|-> <slots> <money|->   runs (money: currency amount denominator)
/// i <group> <kind> <at> <money|-> <proceeds|->   items
/// c <group> <ended> <from> <until|->            churn
/// f <product> <at>                              first paid ("" for the whole app)
/// p <at> <flags>                                purchases (1 trial, 2 paid, 4 refunded)
/// ```
///
/// Instants are whole milliseconds since the reference date (2001) when that gives the instant
/// back exactly, else the seconds since then with a point, written to round-trip exactly; text
/// fields escape `%`, tab and newline as `%25`, `%09`, `%0A`.
extension ChainFigures {
    /// These figures as text, written byte by byte (the store writes a document for every
    /// fact: string concatenation cost as much as the rest of the figures).
    public var text: String {
        var numbers: [String: Int] = [:]
        var named: [String] = []
        for name in runs.map(\.group) + items.map(\.group) + churn.map(\.group) where numbers[name] == nil {
            numbers[name] = named.count
            named.append(name)
        }
        var out = TextOut(capacity: 16 + 24 * named.count + 64 * (runs.count + items.count + churn.count + purchases.count))
        out.append("F1\n")
        for name in named { out.line("g", Self.escaped(name)) }
        for run in runs {
            out.append("r\t")
            out.integer(Int64(numbers[run.group] ?? 0))
            out.tab()
            out.instant(run.from)
            out.tab()
            out.instant(run.until)
            out.tab()
            out.integer(Int64(run.slots.rawValue))
            out.tab()
            out.money(run.mrr)
            out.newline()
        }
        for item in items {
            out.append("i\t")
            out.integer(Int64(numbers[item.group] ?? 0))
            out.tab()
            out.append(item.kind.rawValue)
            out.tab()
            out.instant(item.at)
            out.tab()
            out.money(item.money)
            out.tab()
            out.money(item.proceeds)
            out.newline()
        }
        for span in churn {
            out.append("c\t")
            out.integer(Int64(numbers[span.group] ?? 0))
            out.tab()
            out.instant(span.ended)
            out.tab()
            out.instant(span.from)
            out.tab()
            out.instant(span.until)
            out.newline()
        }
        for (product, at) in firstPaid.sorted(by: { $0.key < $1.key }) {
            out.append("f\t")
            out.append(Self.escaped(product))
            out.tab()
            out.instant(at)
            out.newline()
        }
        for purchase in purchases {
            out.append("p\t")
            out.instant(purchase.at)
            out.tab()
            out.integer(Int64((purchase.trial ? 1 : 0) | (purchase.paid ? 2 : 0) | (purchase.refunded ? 4 : 0)))
            out.newline()
        }
        return String(decoding: out.bytes, as: UTF8.self)
    }

    /// The figures `text` holds (``text``); with `keeping`, only the runs, items and churn of the
    /// groups it keeps (the others are skipped unread). The text is read in place, byte by byte
    /// (the experiment results read a document per exposed customer, and splitting each into
    /// arrays of lines and fields was half of their time).
    public init(text: String, keeping: ((String) -> Bool)? = nil) throws(ChainFiguresTextError) {
        var text = text
        text.makeContiguousUTF8()
        let read = text.utf8.withContiguousStorageIfAvailable { bytes -> Result<ChainFigures, ChainFiguresTextError> in
            var reader = FiguresTextReader(bytes: bytes, keeping: keeping)
            do throws(ChainFiguresTextError) {
                return .success(try reader.figures())
            } catch {
                return .failure(error)
            }
        }
        guard let read else { throw ChainFiguresTextError(line: 1) }
        self = try read.get()
    }

    /// These figures with only the runs, items and churn of the groups `keep` keeps.
    public func keeping(_ keep: (String) -> Bool) -> ChainFigures {
        ChainFigures(
            runs: runs.filter { keep($0.group) }, items: items.filter { keep($0.group) }, churn: churn.filter { keep($0.group) },
            firstPaid: firstPaid, purchases: purchases)
    }

    static func escaped(_ field: String) -> String {
        guard field.utf8.contains(where: { $0 == 37 || $0 == 9 || $0 == 10 }) || field == "-" else { return field }
        // "-" stands for nothing, so a currency or group named "-" is written escaped too.
        if field == "-" { return "%2D" }
        return field.replacingOccurrences(of: "%", with: "%25").replacingOccurrences(of: "\t", with: "%09")
            .replacingOccurrences(of: "\n", with: "%0A")
    }

    static func unescaped(_ field: String) -> String {
        guard field.utf8.contains(37) else { return String(field) }
        return field.replacingOccurrences(of: "%0A", with: "\n").replacingOccurrences(of: "%09", with: "\t")
            .replacingOccurrences(of: "%2D", with: "-").replacingOccurrences(of: "%25", with: "%")
    }
}

/// Text that is not a chain's figures (``ChainFigures/init(text:)``): the line that is wrong.
public struct ChainFiguresTextError: Error, Hashable, Sendable {
    public var line: Int

    public init(line: Int) { self.line = line }
}

/// The bytes of a document being written.
private struct TextOut {
    var bytes: [UInt8] = []

    init(capacity: Int) { bytes.reserveCapacity(capacity) }

    mutating func append(_ text: String) { bytes.append(contentsOf: text.utf8) }
    mutating func tab() { bytes.append(9) }
    mutating func newline() { bytes.append(10) }

    mutating func line(_ kind: String, _ field: String) {
        append(kind)
        tab()
        append(field)
        newline()
    }

    mutating func integer(_ value: Int64) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits:
            (
                UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                UInt8
            ) =
                (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        withUnsafeMutableBytes(of: &digits) { buffer in
            repeat {
                buffer[count] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
                count += 1
            } while magnitude > 0
            for position in stride(from: count - 1, through: 0, by: -1) { bytes.append(buffer[position]) }
        }
    }

    mutating func instant(_ date: Date?) {
        guard let date else {
            bytes.append(UInt8(ascii: "-"))
            return
        }
        let seconds = date.timeIntervalSinceReferenceDate
        let milliseconds = (seconds * 1000).rounded()
        if abs(milliseconds) < 9e15, Double(Int64(milliseconds)) / 1000 == seconds {
            integer(Int64(milliseconds))
        } else {
            append(String(describing: seconds))
        }
    }

    mutating func money(_ part: MoneyPart?) {
        guard let part else {
            bytes.append(UInt8(ascii: "-"))
            return
        }
        append(ChainFigures.escaped(part.currency))
        tab()
        integer(part.amount)
        tab()
        integer(part.denominator)
    }
}

/// Reads a chain's figures from their text in place (``ChainFigures/init(text:keeping:)``): the
/// lines that are not empty, their fields between tabs, numbers parsed from the bytes.
private struct FiguresTextReader {
    let bytes: UnsafeBufferPointer<UInt8>
    let keeping: ((String) -> Bool)?
    /// Where the next line starts.
    private var offset = 0
    /// The current line: its number (the header is line 1), its end, and where its next field
    /// starts (nil once its last field was read).
    private var line = 0
    private var end = 0
    private var cursor: Int?

    init(bytes: UnsafeBufferPointer<UInt8>, keeping: ((String) -> Bool)?) {
        self.bytes = bytes
        self.keeping = keeping
    }

    private static let tab = UInt8(9)
    private static let newline = UInt8(10)

    /// Moves to the next line that is not empty; false at the end of the text.
    private mutating func nextLine() -> Bool {
        while offset < bytes.count, bytes[offset] == Self.newline { offset += 1 }
        guard offset < bytes.count else { return false }
        var stop = offset
        while stop < bytes.count, bytes[stop] != Self.newline { stop += 1 }
        line += 1
        cursor = offset
        end = stop
        offset = stop
        return true
    }

    private var failure: ChainFiguresTextError { ChainFiguresTextError(line: line) }

    /// The next field of the line, as a range of bytes.
    private mutating func field() throws(ChainFiguresTextError) -> Range<Int> {
        guard let start = cursor else { throw failure }
        var stop = start
        while stop < end, bytes[stop] != Self.tab { stop += 1 }
        cursor = stop < end ? stop + 1 : nil
        return start..<stop
    }

    private func string(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    private func isDash(_ range: Range<Int>) -> Bool { range.count == 1 && bytes[range.lowerBound] == UInt8(ascii: "-") }

    /// The integer the bytes spell as `Int64(_:)` reads one (an optional sign, then digits).
    private func integer(_ range: Range<Int>) -> Int64? {
        var position = range.lowerBound
        var negative = false
        if position < range.upperBound, bytes[position] == UInt8(ascii: "-") || bytes[position] == UInt8(ascii: "+") {
            negative = bytes[position] == UInt8(ascii: "-")
            position += 1
        }
        guard position < range.upperBound else { return nil }
        var magnitude: UInt64 = 0
        while position < range.upperBound {
            let digit = bytes[position] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            let (times, overflowTimes) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(UInt64(digit))
            guard !overflowTimes, !overflowSum else { return nil }
            magnitude = sum
            position += 1
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return nil }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else { return nil }
        return Int64(magnitude)
    }

    private mutating func integer() throws(ChainFiguresTextError) -> Int64 {
        guard let value = integer(try field()) else { throw failure }
        return value
    }

    private mutating func group(_ groups: [String]) throws(ChainFiguresTextError) -> String {
        guard let index = integer(try field()), let position = Int(exactly: index), groups.indices.contains(position) else { throw failure }
        return groups[position]
    }

    private mutating func instant() throws(ChainFiguresTextError) -> Date? {
        let range = try field()
        if isDash(range) { return nil }
        if let milliseconds = integer(range) { return Date(timeIntervalSinceReferenceDate: Double(milliseconds) / 1000) }
        guard let seconds = Double(string(range)) else { throw failure }
        return Date(timeIntervalSinceReferenceDate: seconds)
    }

    private mutating func date() throws(ChainFiguresTextError) -> Date {
        guard let date = try instant() else { throw failure }
        return date
    }

    private mutating func money() throws(ChainFiguresTextError) -> MoneyPart? {
        let currency = try field()
        if isDash(currency) { return nil }
        return MoneyPart(currency: ChainFigures.unescaped(string(currency)), amount: try integer(), denominator: try integer())
    }

    /// Whether the line (not a group's name, a first paid instant or a purchase) belongs to a
    /// group `keeping` does not keep: its group's number is between its first tab and the next.
    private func skipped(_ kept: [Bool]) -> Bool {
        guard keeping != nil, let start = cursor, start < end else { return false }
        let kind = bytes[start]
        guard kind != UInt8(ascii: "g"), kind != UInt8(ascii: "f"), kind != UInt8(ascii: "p") else { return false }
        let from = min(start + 2, end)
        var stop = from
        while stop < end, bytes[stop] != Self.tab { stop += 1 }
        guard let index = integer(from..<stop), let position = Int(exactly: index), kept.indices.contains(position) else { return false }
        return !kept[position]
    }

    mutating func figures() throws(ChainFiguresTextError) -> ChainFigures {
        guard nextLine() else { throw ChainFiguresTextError(line: 1) }
        let header = try field()
        guard cursor == nil, header.count == 2, bytes[header.lowerBound] == UInt8(ascii: "F"), bytes[header.lowerBound + 1] == UInt8(ascii: "1")
        else { throw ChainFiguresTextError(line: 1) }
        var figures = ChainFigures()
        var groups: [String] = []
        var kept: [Bool] = []
        while nextLine() {
            if skipped(kept) { continue }
            let kind = try field()
            guard kind.count == 1 else { throw failure }
            switch bytes[kind.lowerBound] {
            case UInt8(ascii: "g"):
                groups.append(ChainFigures.unescaped(string(try field())))
                kept.append(keeping?(groups[groups.count - 1]) ?? true)
            case UInt8(ascii: "r"):
                figures.runs.append(
                    FigureRun(
                        group: try group(groups), from: try date(), until: try instant(), slots: SnapshotSlots(rawValue: Int(try integer())),
                        mrr: try money()))
            case UInt8(ascii: "i"):
                let group = try group(groups)
                guard let kind = FlowKind(rawValue: string(try field())) else { throw failure }
                figures.items.append(FigureItem(group: group, kind: kind, at: try date(), money: try money(), proceeds: try money()))
            case UInt8(ascii: "c"):
                figures.churn.append(ChurnSpan(group: try group(groups), ended: try date(), from: try date(), until: try instant()))
            case UInt8(ascii: "f"): figures.firstPaid[ChainFigures.unescaped(string(try field()))] = try date()
            case UInt8(ascii: "p"):
                let at = try date()
                let flags = try integer()
                figures.purchases.append(FigurePurchase(at: at, trial: flags & 1 != 0, paid: flags & 2 != 0, refunded: flags & 4 != 0))
            default: throw failure
            }
            guard cursor == nil else { throw failure }
        }
        return figures
    }
}
