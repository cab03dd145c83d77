import Foundation
import SubscriptionAnalytics
import SubscriptionEngine
import Testing

/// The stored form of a chain's figures (``ChainFigures/text``): every figure comes back exactly,
/// whatever its names hold, and text that is not figures is refused with the line at fault,
/// never a crash.
@Suite("Analytics: chain figures as text")
struct ChainFiguresTextTests {
    @Test("the figures of random histories and their cohort rows come back exactly", arguments: [UInt64(1), 2])
    func roundTrip(seed: UInt64) throws {
        let histories = SnapshotIndexTests.histories(seed: seed, chains: 60)
        let figures = histories.map { ChainFiguresTests.analytics.figures(ofChain: $0) }
        #expect(figures.contains { !$0.runs.isEmpty && !$0.items.isEmpty && !$0.churn.isEmpty && !$0.purchases.isEmpty && !$0.firstPaid.isEmpty })
        for chain in figures {
            #expect(try ChainFigures(text: chain.text) == chain)
        }
        let cohort = ChainFigures.cohortRows(of: figures, calendar: FigureCalendar(timeZone: .gmt))
        #expect(!cohort.items.isEmpty)
        #expect(try ChainFigures(text: cohort.text) == cohort)
        #expect(try ChainFigures(text: ChainFigures().text) == ChainFigures())
        // Read keeping some groups: only theirs, as filtering the whole figures gives.
        for keep in [{ (group: String) in group.isEmpty }, { $0.hasPrefix("product=") }, { _ in false }] {
            for chain in figures {
                #expect(try ChainFigures(text: chain.text, keeping: keep) == chain.keeping(keep))
            }
        }
        #expect(figures.contains { $0.keeping { $0.isEmpty } != $0 && !$0.keeping { $0.isEmpty }.items.isEmpty })
    }

    @Test("names with percent signs, tabs, newlines, a lone dash or nothing, and instants with fractions, come back exactly")
    func oddNames() throws {
        let at = Date(timeIntervalSinceReferenceDate: 786_000_000.123_456_7)
        let names = ["", "-", "%", "%25", "%2D", "a\tb", "line\nbreak", "product=pro.monthly", "offer=spring %0A sale", "💶"]
        var figures = ChainFigures()
        for name in names {
            let money = MoneyPart(currency: name, amount: -12_345, denominator: 7)
            figures.runs.append(
                FigureRun(group: name, from: at, until: name.isEmpty ? nil : at + 1, slots: [.activeSubscription, .unpriced], mrr: money))
            figures.items.append(FigureItem(group: name, kind: .sale, at: at, money: money, proceeds: name.isEmpty ? nil : money))
            figures.churn.append(ChurnSpan(group: name, ended: at, from: at - 0.5, until: nil))
            figures.firstPaid[name] = at
        }
        figures.purchases = [
            FigurePurchase(at: at, trial: true, paid: false, refunded: true), FigurePurchase(at: at, trial: false, paid: true, refunded: false),
        ]
        // Before 2001 (negative), whole milliseconds (written as such), and the extremes.
        for date in [Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 1_767_225_600.123), .distantPast, .distantFuture] {
            figures.purchases.append(FigurePurchase(at: date, trial: false, paid: false, refunded: false))
        }
        #expect(figures.text.contains("\np\t-978307200000\t0\n"))
        #expect(try ChainFigures(text: figures.text) == figures)
    }

    @Test("text that is not figures is refused with its line: empty, wrong header, unknown rows, missing or extra fields, bad numbers")
    func refused() {
        let cases: [(String, Int)] = [
            ("", 1), ("F2\n", 1), ("F1\nx\t1\n", 2), ("F1\nr\t0\t1\t-\t1\t-\n", 2), ("F1\ng\tapp\nr\t0\t1\t-\t1\n", 3),
            ("F1\ng\tapp\nr\t0\t1\t-\t1\t-\textra\n", 3), ("F1\ng\tapp\ni\t0\tnotAKind\t1\t-\t-\n", 3), ("F1\ng\tapp\nc\t0\tsoon\t1\t-\n", 3),
            ("F1\ng\tapp\nr\t0\t1\t-\t1\tUSD\tmany\t1\n", 3), ("F1\np\t-\t2\n", 2),
            // Numbers past Int64, a sign alone, a group that is not there, a kind of two letters.
            ("F1\ng\tapp\nr\t0\t1\t-\t9223372036854775808\t-\n", 3), ("F1\n\np\t-\t2\n", 2), ("F1\np\t1\t+\n", 2),
            ("F1\ng\tapp\nc\t1\t1\t1\t-\n", 3), ("F1\ngg\tapp\n", 2), ("F1\t\n", 1),
        ]
        for (text, line) in cases {
            #expect(throws: ChainFiguresTextError(line: line), "\(text.debugDescription)") { try ChainFigures(text: text) }
        }
        // Empty lines are no rows (and not counted); signs and the extremes of Int64 read as Swift reads them.
        let read = try? ChainFigures(text: "\nF1\n\n\np\t-9223372036854775808\t+2\n\np\t9223372036854775807\t-0\n")
        #expect(read?.purchases.map(\.paid) == [true, false])
        #expect(read?.purchases.first?.at == Date(timeIntervalSinceReferenceDate: Double(Int64.min) / 1000))
    }

    @Test("every mutation of real figures' text decodes or is refused, never crashes")
    func mutations() {
        let figures = ChainFiguresTests.analytics.figures(ofChain: SnapshotIndexTests.histories(seed: 3, chains: 5)[0])
        let bytes = Array(figures.text.utf8)
        let alphabet = Array("\t\n-%0123456789.eFgricfp".utf8) + [0xFF, 0x00]
        var state: UInt64 = 17
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var refused = 0
        for _ in 0..<3_000 {
            var mutated = bytes
            for _ in 0..<(1 + next(3)) {
                let position = next(mutated.count)
                switch next(3) {
                case 0: mutated[position] = alphabet[next(alphabet.count)]
                case 1: mutated.remove(at: position)
                default: mutated.insert(alphabet[next(alphabet.count)], at: position)
                }
            }
            if (try? ChainFigures(text: String(decoding: mutated, as: UTF8.self))) == nil { refused += 1 }
        }
        #expect(refused > 1_000)
    }
}
