import AppStoreSimulator
import Foundation

/// What `storekeeper bench seed` leaves next to the data for the measuring step
/// (`storekeeper bench scale`): the app the rows belong to, what was seeded, chains to read,
/// and a sample of the simulator's truth at the end of the history.
struct SeedManifest: Codable, Sendable {
    static let fileName = "seed-manifest.json"

    var appId: String
    var bundleId: String
    /// The app key the measuring step's server accepts (a fresh one per seed).
    var apiKey: String
    /// The PostgreSQL database seeded, or nil for the SQLite database of the directory.
    var databaseURL: String?
    var subscriptions: Int
    var seed: UInt64
    var days: Double
    var end: Date
    var chains: Int
    var ledgerRows: Int
    /// Existing chains spread over every slice, for status reads.
    var reads: [String]
    /// The simulator's truth of a sample of chains, for the check.
    var truths: [Truth]
    /// Customers spread over every slice, for customer pages (nil in a seed before these).
    var customers: [String]?
    /// The seed's running experiment and how many customers it enrolled (nil in a seed before
    /// experiments).
    var experimentId: String?
    var enrolments: Int?
    /// The settings digest the seed built the figures with (nil when it built none: the
    /// server builds them at start).
    var figureSettings: String?

    /// One chain as the simulated App Store knew it at the end of the history.
    struct Truth: Codable, Sendable {
        var originalTransactionId: String
        /// The engine's status name (`active`, `expired`, `billingRetry`, `gracePeriod`, `revoked`).
        var status: String
        var productId: String
        var expiresDate: Date
        var willAutoRenew: Bool
        var gracePeriodExpiresDate: Date?

        init(_ truth: SubscriptionTruth, at end: Date) {
            originalTransactionId = truth.originalTransactionId
            status = DemoComparison.engineStatus(truth.status(at: end)).rawValue
            productId = truth.productId
            expiresDate = truth.expiresDate
            willAutoRenew = truth.autoRenewStatus
            gracePeriodExpiresDate = truth.gracePeriodExpiresDate
        }

        /// Whether the truth at the end still holds at `instant`: nothing of the chain's
        /// (its expiry, its grace period's end, the end of Apple's 60 days of billing retry)
        /// falls between the two.
        func holds(from end: Date, until instant: Date) -> Bool {
            let changes = [expiresDate, gracePeriodExpiresDate, expiresDate.addingTimeInterval(60 * 86_400)].compactMap { $0 }
            return !changes.contains { $0 >= end.addingTimeInterval(-1) && $0 <= instant.addingTimeInterval(60) }
        }
    }

    static func read(from directory: URL) throws -> SeedManifest {
        let url = directory.appendingPathComponent(fileName)
        guard let data = FileManager.default.contents(atPath: url.path) else {
            throw CLIFailure.usage("\(url.path) does not exist: run storekeeper bench seed --data-dir \(directory.path) first")
        }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .millisecondsSince1970
        return try decoder.decode(SeedManifest.self, from: data)
    }

    func write(to url: URL) throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .millisecondsSince1970
        try encoder.encode(self).write(to: url, options: .atomic)
    }
}

/// A process's resident memory from `/proc/<pid>/status` (Linux).
struct ProcessMemory: Sendable {
    /// `VmRSS`: resident now, in kB.
    var residentKilobytes: Int
    /// `VmHWM`: the peak resident so far, in kB.
    var peakKilobytes: Int

    var residentMegabytes: Double { (Double(residentKilobytes) / 1024 * 10).rounded() / 10 }
    var peakMegabytes: Double { (Double(peakKilobytes) / 1024 * 10).rounded() / 10 }

    /// The memory of process `pid` (this process when nil), or nil where `/proc` is not there.
    static func of(pid: Int32?) -> ProcessMemory? {
        let path = "/proc/\(pid.map(String.init) ?? "self")/status"
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else { return nil }
        func field(_ name: String) -> Int? {
            guard let line = text.split(separator: "\n").first(where: { $0.hasPrefix(name + ":") }) else { return nil }
            return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
        }
        guard let resident = field("VmRSS"), let peak = field("VmHWM") else { return nil }
        return ProcessMemory(residentKilobytes: resident, peakKilobytes: peak)
    }
}
