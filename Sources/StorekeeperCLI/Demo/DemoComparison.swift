import AppStoreModels
import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import NIOHTTP1
import SubscriptionEngine

/// Compares, for every subscription the simulated App Store knows, what the server's API says
/// with the simulator's truth: status, product, expiry and auto-renew.
struct DemoComparison {
    let world: DemoWorld
    let client: HTTPClient
    let serverBase: String

    struct Result: Sendable {
        var total: Int
        var matched: Int
        var mismatches: [String]
        var byStatus: [String: Int]
        var allMatched: Bool { matched == total }
    }

    /// What the server's `GET /v1/apps/{app}/subscriptions/{id}` answers (the fields compared).
    struct ServerView: Decodable {
        var status: String
        var productId: String
        var expiresDate: String?
        var willAutoRenew: Bool?
    }

    func compare(at instant: Date) async throws -> Result {
        let truths = world.store.subscriptions()
        var result = Result(total: truths.count, matched: 0, mismatches: [], byStatus: [:])
        for truth in truths {
            let expected = Self.engineStatus(truth.status(at: instant))
            result.byStatus[expected.rawValue, default: 0] += 1
            let (status, text) = try await DemoHTTP.send(
                client: client, method: .GET, url: "\(serverBase)/v1/apps/\(DemoWorld.appId)/subscriptions/\(truth.originalTransactionId)",
                key: world.adminKey, body: nil)
            guard status == 200, let view = try? JSONDecoder().decode(ServerView.self, from: Data(text.utf8)) else {
                result.mismatches.append("\(truth.originalTransactionId): the server answered \(status) (truth: \(expected.rawValue))")
                continue
            }
            var differences: [String] = []
            if view.status != expected.rawValue { differences.append("status \(view.status) ≠ \(expected.rawValue)") }
            if view.productId != truth.productId { differences.append("product \(view.productId) ≠ \(truth.productId)") }
            let expires = view.expiresDate.flatMap(Self.parse)
            if expires.map({ abs($0.timeIntervalSince(truth.expiresDate)) >= 0.001 }) ?? true {
                differences.append("expires \(view.expiresDate ?? "none") ≠ \(Self.format(truth.expiresDate))")
            }
            if (view.willAutoRenew ?? false) != truth.willAutoRenew {
                differences.append("auto-renew \(view.willAutoRenew.map(String.init) ?? "none") ≠ \(truth.willAutoRenew)")
            }
            if differences.isEmpty {
                result.matched += 1
            } else {
                result.mismatches.append("\(truth.originalTransactionId) (\(truth.ownership.rawValue)): " + differences.joined(separator: ", "))
            }
        }
        return result
    }

    static func engineStatus(_ status: Status) -> SubscriptionStatus {
        SubscriptionStatus(appleStatusCode: Int(status.rawValue)) ?? .expired
    }

    static func parse(_ text: String) -> Date? {
        let fractional = ISO8601DateFormatter()
        fractional.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = fractional.date(from: text) { return date }
        return ISO8601DateFormatter().date(from: text)
    }

    static func format(_ date: Date) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: date)
    }
}
