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

    /// An instant as text: whole milliseconds since the reference date when they give the
    /// instant back exactly (`786000000123`), else the seconds, which Swift always writes with a
    /// point or an exponent (`786000000.1234567`).
    static func instant(_ field: Substring) -> Date? {
        if let milliseconds = Int64(field) { return Date(timeIntervalSinceReferenceDate: Double(milliseconds) / 1000) }
        return Double(field).map(Date.init(timeIntervalSinceReferenceDate:))
    }

    /// The figures `text` holds (``text``); with `keeping`, only the runs, items and churn of the
    /// groups it keeps (the others are skipped unread).
    public init(text: String, keeping: ((String) -> Bool)? = nil) throws(ChainFiguresTextError) {
        self.init()
        var lines = text.utf8.split(separator: 10, omittingEmptySubsequences: true)[...]
        guard let header = lines.popFirst(), Substring(header) == "F1" else { throw ChainFiguresTextError(line: 1) }
        var groups: [String] = []
        var kept: [Bool] = []
        for (number, line) in lines.enumerated() {
            if let keeping, let kind = line.first, kind != UInt8(ascii: "g"), kind != UInt8(ascii: "f"), kind != UInt8(ascii: "p") {
                // The group's number, between the first tab and the next.
                let field = line.dropFirst(2).prefix { $0 != 9 }
                if let index = Int(Substring(field)), kept.indices.contains(index), !kept[index] { continue }
            }
            let fields = line.split(separator: 9, omittingEmptySubsequences: false).map { Substring($0) }
            var position = 1
            func next() throws(ChainFiguresTextError) -> Substring {
                guard position < fields.count else { throw ChainFiguresTextError(line: number + 2) }
                defer { position += 1 }
                return fields[position]
            }
            func group() throws(ChainFiguresTextError) -> String {
                guard let index = Int(try next()), groups.indices.contains(index) else { throw ChainFiguresTextError(line: number + 2) }
                return groups[index]
            }
            func instant() throws(ChainFiguresTextError) -> Date? {
                let field = try next()
                if field == "-" { return nil }
                guard let date = Self.instant(field) else { throw ChainFiguresTextError(line: number + 2) }
                return date
            }
            func date() throws(ChainFiguresTextError) -> Date {
                guard let date = try instant() else { throw ChainFiguresTextError(line: number + 2) }
                return date
            }
            func integer() throws(ChainFiguresTextError) -> Int64 {
                guard let value = Int64(try next()) else { throw ChainFiguresTextError(line: number + 2) }
                return value
            }
            func money() throws(ChainFiguresTextError) -> MoneyPart? {
                let currency = try next()
                if currency == "-" { return nil }
                return MoneyPart(currency: Self.unescaped(currency), amount: try integer(), denominator: try integer())
            }
            switch fields[0] {
            case "g":
                groups.append(Self.unescaped(try next()))
                kept.append(keeping?(groups[groups.count - 1]) ?? true)
            case "r":
                runs.append(
                    FigureRun(
                        group: try group(), from: try date(), until: try instant(), slots: SnapshotSlots(rawValue: Int(try integer())),
                        mrr: try money()))
            case "i":
                let group = try group()
                guard let kind = FlowKind(rawValue: String(try next())) else { throw ChainFiguresTextError(line: number + 2) }
                items.append(FigureItem(group: group, kind: kind, at: try date(), money: try money(), proceeds: try money()))
            case "c": churn.append(ChurnSpan(group: try group(), ended: try date(), from: try date(), until: try instant()))
            case "f": firstPaid[Self.unescaped(try next())] = try date()
            case "p":
                let at = try date()
                let flags = try integer()
                purchases.append(FigurePurchase(at: at, trial: flags & 1 != 0, paid: flags & 2 != 0, refunded: flags & 4 != 0))
            default: throw ChainFiguresTextError(line: number + 2)
            }
            guard position == fields.count else { throw ChainFiguresTextError(line: number + 2) }
        }
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

    static func unescaped(_ field: Substring) -> String {
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
