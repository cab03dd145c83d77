import AppStoreJOSE
import AppStoreModels
import AppStoreSimulator
import AppStoreTestSigning
import AppStoreVerification
import Foundation
import Testing

@Suite("Population: the cancellation sheet asks the app")
struct PopulationRetentionTests {
    /// A population where every paid subscriber means to cancel once, answered by `answer`, with
    /// the customer taking whatever is offered (or never, with `takes` false).
    static func run(
        takes: Bool, answer: (RetentionRequest) -> RealtimeResponseBody?
    ) throws -> (store: SimulatedAppStore, simulator: PopulationSimulator, requests: [RetentionRequest], notifications: [NotificationRecord]) {
        var behaviour = PopulationBehaviour()
        behaviour.churnRate = 1
        behaviour.reenableRate = 0
        behaviour.trialRate = 0
        behaviour.billingFailureRate = 0
        behaviour.refundRate = 0
        behaviour.upgradeRate = 0
        behaviour.downgradeRate = 0
        behaviour.crossgradeRate = 0
        behaviour.priceIncreaseRate = 0
        behaviour.familySharingRate = 0
        behaviour.winBackRate = 0
        behaviour.offerCodeRate = 0
        behaviour.retentionMessageSaveRate = takes ? 1 : 0
        behaviour.retentionSwitchRate = takes ? 1 : 0
        behaviour.retentionOfferRedemptionRate = takes ? 1 : 0
        var configuration = PopulationConfiguration(
            customers: 20, start: PopulationSimulatorTests.start, days: 75, seed: 7, behaviour: behaviour)
        configuration.asksRetention = true
        let store = SimulatedAppStore(bundleId: "com.example.sim", appAppleId: 42, environment: .production)
        let simulator = PopulationSimulator(configuration: configuration, store: store, signer: PopulationSimulatorTests.signer)
        var requests: [RetentionRequest] = []
        var notifications: [NotificationRecord] = []
        var instant = configuration.start
        while instant < configuration.end {
            instant = min(configuration.end, instant.addingTimeInterval(86_400))
            var output = try simulator.advance(to: instant)
            while true {
                notifications += output.notifications
                guard !output.retentionRequests.isEmpty else { break }
                #expect(output.retentionRequests.count == 1, "the population stops at each sheet")
                for request in output.retentionRequests {
                    #expect(simulator.simulatedInstant == request.date, "nothing later happened before the answer")
                    requests.append(request)
                    notifications += try simulator.resolveRetention(request, answer: answer(request)).notifications
                }
                output = try simulator.advance(to: instant)
            }
        }
        return (store, simulator, requests, notifications)
    }

    @Test("a customer about to cancel opens the sheet: the request is Apple's, signed as Apple signs it, and verifies")
    func requestsVerify() async throws {
        let (store, _, requests, _) = try Self.run(takes: false) { _ in nil }
        let request = try #require(requests.first)
        #expect(UUID(uuidString: request.requestIdentifier) != nil && request.requestIdentifier == request.requestIdentifier.lowercased())
        #expect(Set(requests.map(\.requestIdentifier)).count == requests.count)
        let signed = try PopulationSimulatorTests.signer.signRealtimeRequest(request, store: store, signedDate: request.date)
        let verifier = try SignedDataVerifier(
            rootCertificates: [PopulationSimulatorTests.signer.certificateAuthority.rootCertificateDER], bundleId: "com.example.sim",
            appAppleId: 42, environment: .production)
        let decoded = try #require(await verifier.verifyAndDecodeRealtimeRequest(signed, now: request.date).payload)
        #expect(decoded.originalTransactionId == request.originalTransactionId)
        #expect(decoded.productId == request.productId && decoded.userLocale == request.userLocale)
        #expect(decoded.appAppleId == 42 && decoded.environment == .production)
    }

    @Test("with no answer (refused) or a message not taken, the customer cancels as meant: auto-renew goes off at the sheet's instant")
    func cancelsWithoutAnswer() throws {
        let (store, simulator, requests, notifications) = try Self.run(takes: false) { _ in nil }
        #expect(!requests.isEmpty)
        for request in requests {
            let disabled = notifications.filter {
                $0.originalTransactionId == request.originalTransactionId && $0.notificationType == .didChangeRenewalStatus
                    && $0.subtype == .autoRenewDisabled
            }
            #expect(!disabled.isEmpty, "\(request.originalTransactionId)")
        }
        #expect(simulator.retentionOutcomes.values.flatMap { $0 }.allSatisfy { $0.shown == "refused" && !$0.stayed })
        for request in requests {
            let truth = try #require(store.subscription(request.originalTransactionId))
            #expect(!truth.autoRenewStatus, "cancelled at the sheet")
        }
    }

    @Test(
        "a promotional offer taken on the sheet: OFFER_REDEEMED, the renewal info names it, and the next renewal is a retention offer (offerType 5) at the discount"
    )
    func offerRedeemed() throws {
        let key = P256Key()
        let (store, simulator, requests, notifications) = try Self.run(takes: true) { request in
            RealtimeResponseBody(
                promotionalOffer: PromotionalOffer(
                    messageIdentifier: "6f0e1c52-7d0a-4c8e-9a61-0000000000a3",
                    promotionalOfferSignatureV2: key.jws(productId: request.productId, offerIdentifier: "stay.half")))
        }
        let request = try #require(requests.first)
        let outcome = try #require(simulator.retentionOutcomes[request.originalTransactionId]?.first)
        #expect(outcome.shown == "promotionalOffer" && outcome.stayed)
        #expect(
            notifications.contains {
                $0.originalTransactionId == request.originalTransactionId && $0.notificationType == .offerRedeemed && $0.subtype == nil
            })
        let renewals = store.allTransactions().map(\.transaction).filter {
            $0.originalTransactionId == request.originalTransactionId && ($0.purchaseDate.map { $0 > request.date } ?? false)
        }
        let next = try #require(renewals.first, "the chain renewed after the sheet")
        #expect(next.offerType == .retentionOffer && next.offerIdentifier == "stay.half")
        let before = try #require(store.transaction(id: request.originalTransactionId))
        #expect(next.price == (before.price ?? 0) / 2)
    }

    @Test("a plan switch taken on the sheet keeps the subscription renewing, into the plan proposed")
    func switchTaken() throws {
        let (store, simulator, requests, _) = try Self.run(takes: true) { request in
            RealtimeResponseBody(
                alternateProduct: AlternateProduct(
                    productId: request.productId == "premium.yearly" ? "premium.monthly" : "premium.yearly", billingPlanType: .billedUpfront))
        }
        let request = try #require(requests.first { $0.productId == "premium.monthly" })
        #expect(simulator.retentionOutcomes[request.originalTransactionId]?.first?.stayed == true)
        let truth = try #require(store.subscription(request.originalTransactionId))
        #expect(truth.autoRenewProductId == "premium.yearly" || truth.productId == "premium.yearly")
    }
}

/// The app's In-App Purchase key, signing a V2 promotional offer as the server does.
private struct P256Key {
    func jws(productId: String, offerIdentifier: String) -> String {
        let header = Base64URL.encode(Data(#"{"alg":"ES256","kid":"KEY","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(Data(#"{"productId":"\#(productId)","offerIdentifier":"\#(offerIdentifier)","aud":"promotional-offer"}"#.utf8))
        return header + "." + payload + ".c2ln"
    }
}
