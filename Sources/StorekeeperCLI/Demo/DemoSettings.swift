import AppStoreSimulator
import Foundation

/// The demo's knobs, as parsed.
struct DemoSettings: Sendable {
    var check: Bool
    var customers: Int
    var days: Double
    var dropRate: Double
    var duplicateRate: Double
    var seed: UInt64
    var dataDirectory: String?
    /// An empty PostgreSQL database to use instead of SQLite in the data directory.
    var databaseURL: String? = nil
    var port: Int
    var stepHours: Double
    var quiet: Bool
    /// Whether the server may call the simulator's App Store Server API.
    var reconciles: Bool = true
    /// Whether V1 notifications are delivered beside V2.
    var sendsV1: Bool = false
    /// The pace of the live phase.
    var liveSpeed: Double = 1
    /// When the simulated run ends (`--until`); `nil` ends it now.
    var until: Date?
    /// A scripted run instead of a random population (`storekeeper simulate`).
    var scenario: Scenario?
    /// More URLs that get the app's events in RevenueCat's webhook format (`--revenuecat-webhook`).
    var revenueCatWebhooks: [String] = []
}
