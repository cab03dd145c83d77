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
/// Instants are `Date.timeIntervalSinceReferenceDate` written to round-trip exactly; text
/// fields escape `%`, tab and newline as `%25`, `%09`, `%0A`.
extension ChainFigures {
    /// These figures as text.
    public var text: String {
        var groups: [String: Int] = [:]
        var named: [String] = []
        func group(_ name: String) -> String {
            if let number = groups[name] { return String(number) }
            groups[name] = named.count
            named.append(name)
            return String(named.count - 1)
        }
        func instant(_ date: Date?) -> String { date.map { String(describing: $0.timeIntervalSinceReferenceDate) } ?? "-" }
        func money(_ part: MoneyPart?) -> String {
            part.map { Self.escaped($0.currency) + "\t" + String($0.amount) + "\t" + String($0.denominator) } ?? "-"
        }
        var body = ""
        for run in runs {
            body += "r\t" + group(run.group) + "\t" + instant(run.from) + "\t" + instant(run.until) + "\t" + String(run.slots.rawValue)
            body += "\t" + money(run.mrr) + "\n"
        }
        for item in items {
            body += "i\t" + group(item.group) + "\t" + item.kind.rawValue + "\t" + instant(item.at)
            body += "\t" + money(item.money) + "\t" + money(item.proceeds) + "\n"
        }
        for span in churn {
            body += "c\t" + group(span.group) + "\t" + instant(span.ended) + "\t" + instant(span.from) + "\t" + instant(span.until) + "\n"
        }
        for (product, at) in firstPaid.sorted(by: { $0.key < $1.key }) { body += "f\t" + Self.escaped(product) + "\t" + instant(at) + "\n" }
        for purchase in purchases {
            let flags = (purchase.trial ? 1 : 0) | (purchase.paid ? 2 : 0) | (purchase.refunded ? 4 : 0)
            body += "p\t" + instant(purchase.at) + "\t" + String(flags) + "\n"
        }
        return "F1\n" + named.map { "g\t" + Self.escaped($0) + "\n" }.joined() + body
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
                guard let value = Double(field) else { throw ChainFiguresTextError(line: number + 2) }
                return Date(timeIntervalSinceReferenceDate: value)
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
