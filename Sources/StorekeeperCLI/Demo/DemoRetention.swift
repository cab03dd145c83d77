import AppStoreModels
import AppStoreSimulator
import AsyncHTTPClient
import Foundation
import StorekeeperStore

/// The demo's Retention Messaging: the app's offerings document has a retention placement, and
/// every simulated customer about to cancel opens Apple's cancellation sheet, which asks the
/// server's Get Retention Message endpoint what to show.
enum DemoRetention {
    static let stayMessage = "6f0e1c52-7d0a-4c8e-9a61-0000000000a1"
    static let switchMessage = "6f0e1c52-7d0a-4c8e-9a61-0000000000a2"
    static let offerMessage = "6f0e1c52-7d0a-4c8e-9a61-0000000000a3"

    /// The document: monthly premium subscribers in English are offered the yearly plan, those in
    /// German or French a retention offer on their plan (when the app can sign one), everyone
    /// else a message.
    static var document: [String: Any] {
        [
            "offerings": [
                ["id": "stay-message", "retention": ["kind": "message", "messageIdentifier": stayMessage]],
                [
                    "id": "switch-yearly",
                    "retention": [
                        "kind": "alternateProduct", "messageIdentifier": switchMessage, "productId": "premium.yearly",
                        "billingPlanType": "BILLED_UPFRONT",
                    ],
                ],
                ["id": "stay-offer", "retention": ["kind": "promotionalOffer", "messageIdentifier": offerMessage, "offerIdentifier": "stay.half"]],
            ],
            "placements": [
                [
                    "id": "cancellation", "kind": "retention", "defaultOffering": "stay-message",
                    "rules": [
                        ["id": "monthly-in-english", "offering": "switch-yearly", "productIds": ["premium.monthly"], "locales": ["en"]],
                        ["id": "offer-in-europe", "offering": "stay-offer", "locales": ["de", "fr"]],
                    ],
                ]
            ],
        ]
    }

    /// Saves the document (the demo's own catalog only: a scenario's products may differ).
    static func install(send: (String, Data) async throws -> (Int, String)) async throws {
        let body = try JSONSerialization.data(withJSONObject: ["document": document, "note": "demo: retention messaging"])
        let (status, text) = try await send("/v1/apps/\(DemoWorld.appId)/offerings", body)
        guard (200..<300).contains(status) else {
            throw CLIFailure(exitCode: 1, message: "the server refused the demo's offerings (\(status)): \(text.prefix(300))")
        }
    }

    /// Asks the server what to show, as Apple does: the request signed now, posted without a key.
    /// `nil` when the server answers anything but 200 (Apple then shows the default message).
    static func ask(_ request: RetentionRequest, world: DemoWorld, client: HTTPClient, serverBase: String) async throws -> RealtimeResponseBody? {
        let signed = try world.signer.signRealtimeRequest(request, store: world.store, signedDate: world.clock.now)
        let body = try JSONEncoder().encode(RealtimeRequestBody(signedPayload: signed))
        let (status, text) = try await DemoHTTP.send(
            client: client, method: .POST, url: "\(serverBase)/v1/apps/\(DemoWorld.appId)/retention/realtime", key: nil, body: body)
        guard status == 200 else { return nil }
        return try JSONDecoder().decode(RealtimeResponseBody.self, from: Data(text.utf8))
    }

    /// The customer event the server records for what a customer was shown.
    static func eventType(shown: String) -> EventType? {
        switch shown {
        case "message": .retentionMessageShown
        case "alternateProduct": .retentionAlternateProductShown
        case "promotionalOffer": .retentionOfferShown
        case "none": .retentionDefaultShown
        default: nil
        }
    }

    /// `retention: 42 cancellation sheets, 11 stayed (26%): message 20 (3 stayed), …`
    static func summary(_ outcomes: [String: [RetentionOutcome]]) -> String {
        let all = outcomes.values.flatMap { $0 }
        guard !all.isEmpty else { return "retention: no cancellation sheet opened" }
        let stayed = all.filter(\.stayed).count
        let byAnswer = Dictionary(grouping: all, by: \.shown).sorted { $0.key < $1.key }
            .map { "\($0.key) \($0.value.count) (\($0.value.filter(\.stayed).count) stayed)" }
        return "retention: \(all.count) cancellation sheets, \(stayed) saved (\(Int((Double(stayed) / Double(all.count) * 100).rounded()))%): "
            + byAnswer.joined(separator: ", ")
    }

    /// `commitment plans: 12 chains paid monthly over a 12-month commitment, 96 payments, 3 cancelled during one`
    static func commitmentSummary(_ store: SimulatedAppStore) -> String {
        let payments = store.allTransactions().map(\.transaction).filter { $0.billingPlanType == .monthly }
        let chains = Set(payments.compactMap(\.originalTransactionId))
        let cancelled = store.subscriptions().filter { $0.commitment != nil && !$0.autoRenewStatus }.count
        return "commitment plans: \(chains.count) chains paid monthly over a 12-month commitment, \(payments.count) payments, "
            + "\(cancelled) now cancelled during one (still paying)"
    }
}
