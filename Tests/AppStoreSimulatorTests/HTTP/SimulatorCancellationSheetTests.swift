import AppStoreJOSE
import AppStoreModels
import AppStoreVerification
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import AppStoreSimulator

/// A device cancelling in a running simulator: with a real-time URL configured, Apple's
/// cancellation sheet asks the app's Get Retention Message endpoint (a loopback stand-in here)
/// and the customer accepts or declines what it shows.
@Suite("Simulated App Store: the cancellation sheet asks the app's real-time URL")
struct SimulatorCancellationSheetTests {
    /// What the stand-in endpoint received: the decoded requests that verified, and how many did not.
    final class Received: Sendable {
        let requests = Mutex<[DecodedRealtimeRequestBody]>([])
        let unverified = Mutex(0)
    }

    /// What a device's cancel call answered.
    struct CancelAnswer: Decodable {
        struct Retention: Decodable {
            var shown: String
            var stayed: Bool
        }
        var transactions: [SimulatedDevices.DeviceTransaction]
        var retention: Retention?
    }

    /// A V2 promotional offer signature as the app's server writes one (the simulator reads the payload only).
    static func offerSignature(productId: String, offerIdentifier: String) -> String {
        let header = Base64URL.encode(Data(#"{"alg":"ES256","kid":"KEY","typ":"JWT"}"#.utf8))
        let payload = Base64URL.encode(
            Data(#"{"productId":"\#(productId)","offerIdentifier":"\#(offerIdentifier)","aud":"promotional-offer"}"#.utf8))
        return header + "." + payload + ".c2ln"
    }

    /// The app's endpoint: verifies each request as the app must, then answers by path: `/offer` a
    /// promotional offer on the plan, `/switch` the yearly plan, `/refuse` a 400.
    static func retentionRouter(fixture: SimulatorHTTPFixture, received: Received) throws -> Router<BasicRequestContext> {
        let verifier = try fixture.verifier()
        let clock = fixture.clock
        let router = Router()
        for path in ["offer", "switch", "refuse"] {
            router.post("/\(path)") { request, _ -> Response in
                var request = request
                let body = try await request.collectBody(upTo: 1 << 20)
                let signed = try JSONDecoder().decode(RealtimeRequestBody.self, from: Data(body.readableBytesView)).signedPayload ?? ""
                guard let decoded = await verifier.verifyAndDecodeRealtimeRequest(signed, now: clock.now).payload else {
                    received.unverified.withLock { $0 += 1 }
                    return Response(status: .unauthorized)
                }
                received.requests.withLock { $0.append(decoded) }
                let answer: RealtimeResponseBody
                switch path {
                case "offer":
                    answer = RealtimeResponseBody(
                        promotionalOffer: PromotionalOffer(
                            messageIdentifier: "6f0e1c52-7d0a-4c8e-9a61-0000000000a3",
                            promotionalOfferSignatureV2: offerSignature(productId: decoded.productId ?? "", offerIdentifier: "stay.half")))
                case "switch":
                    answer = RealtimeResponseBody(alternateProduct: AlternateProduct(productId: "premium.yearly", billingPlanType: .billedUpfront))
                default:
                    return Response(status: .badRequest)
                }
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: try JSONEncoder().encode(answer))))
            }
        }
        return router
    }

    /// The simulator's routes and device endpoints on one loopback port, a monthly subscriber
    /// `alice`, and the stand-in endpoint at `path` configured as the real-time URL (none when nil).
    func withSubscriber(
        realtimePath path: String?,
        _ body: @Sendable (TestClientProtocol, SimulatorHTTPFixture, SimulatedDevices, Received, _ chain: String) async throws -> Void
    ) async throws {
        let fixture = try SimulatorHTTPFixture(populate: false)
        let received = Received()
        let realtime = Application(
            router: try Self.retentionRouter(fixture: fixture, received: received),
            configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await realtime.test(.live) { realtimeClient in
            let realtimePort = try #require(realtimeClient.port)
            let endpoints = try SimulatorEndpoints(
                store: fixture.store, signer: fixture.signer, clock: fixture.clock, configuration: fixture.configuration)
            let population = PopulationSimulator(
                configuration: PopulationConfiguration(
                    customers: 0, start: SimulatorHTTPFixture.start, days: 3650, seed: 11, behaviour: .scripted),
                store: fixture.store, signer: fixture.signer)
            let devices = SimulatedDevices(
                population: population, clock: fixture.clock, delivery: nil, retentionMessaging: endpoints.retentionMessaging)
            let router = Router(context: BasicRequestContext.self)
            endpoints.addRoutes(to: router)
            DeviceEndpoints(devices: devices).addRoutes(to: router)
            let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
            try await app.test(.live) { client in
                let port = try #require(client.port)
                if let path {
                    let api = try fixture.client(baseURL: try #require(URL(string: "http://127.0.0.1:\(port)")))
                    try await api.configureRealtimeURL(request: .init(realtimeURL: "http://127.0.0.1:\(realtimePort)/\(path)"))
                }
                let bought = try await client.execute(
                    uri: "/device/customers/alice/purchase", method: .post, headers: [.contentType: "application/json"],
                    body: ByteBuffer(string: #"{"productId":"premium.monthly"}"#))
                #expect(bought.status == .ok)
                let chain = try #require(
                    try JSONDecoder().decode(CancelAnswer.self, from: Data(bought.body.readableBytesView)).transactions.first?.originalId)
                try await body(client, fixture, devices, received, chain)
            }
        }
    }

    /// Cancels alice's subscription from her device; the answer.
    static func cancel(_ client: TestClientProtocol, _ onRetentionAnswer: String?) async throws -> CancelAnswer {
        let body = onRetentionAnswer.map { #"{"productId":"premium.monthly","onRetentionAnswer":"\#($0)"}"# } ?? #"{"productId":"premium.monthly"}"#
        let response = try await client.execute(
            uri: "/device/customers/alice/cancel", method: .post, headers: [.contentType: "application/json"], body: ByteBuffer(string: body))
        #expect(response.status == .ok)
        return try JSONDecoder().decode(CancelAnswer.self, from: Data(response.body.readableBytesView))
    }

    @Test("with no real-time URL configured, a cancel turns auto-renew off at once and the sheet asks nothing")
    func cancelsWithoutURL() async throws {
        try await withSubscriber(realtimePath: nil) { client, fixture, _, received, chain in
            let answer = try await Self.cancel(client, "accept")
            #expect(answer.retention == nil)
            #expect(fixture.store.subscription(chain)?.autoRenewStatus == false)
            #expect(received.requests.withLock { $0.isEmpty })
        }
    }

    @Test(
        "an accepted promotional offer keeps auto-renew on and the next renewal is a retention offer (offerType 5); the request verifies and names the chain, product and a fresh UUID"
    )
    func acceptedOfferKeepsRenewing() async throws {
        try await withSubscriber(realtimePath: "offer") { client, fixture, devices, received, chain in
            let answer = try await Self.cancel(client, "accept")
            #expect(answer.retention?.shown == "promotionalOffer" && answer.retention?.stayed == true)
            let truth = try #require(fixture.store.subscription(chain))
            #expect(truth.autoRenewStatus)

            let requests = received.requests.withLock { $0 }
            #expect(received.unverified.withLock { $0 } == 0)
            let request = try #require(requests.first)
            #expect(requests.count == 1)
            #expect(request.originalTransactionId == chain && request.productId == "premium.monthly")
            #expect(request.appAppleId == SimulatorHTTPFixture.appAppleId && request.environment == fixture.store.environment)
            let identifier = try #require(request.requestIdentifier)
            #expect(UUID(uuidString: identifier) != nil && identifier == identifier.lowercased())

            fixture.clock.set(truth.expiresDate.addingTimeInterval(3600))
            try await devices.tick()
            let renewal = try #require(
                fixture.store.allTransactions().map(\.transaction).filter {
                    $0.originalTransactionId == chain && ($0.purchaseDate.map { $0 >= truth.expiresDate } ?? false)
                }.first, "the chain renewed")
            #expect(renewal.offerType == .retentionOffer && renewal.offerType?.rawValue == 5)
            #expect(renewal.offerIdentifier == "stay.half")

            // A second sheet is a new request, with a new identifier.
            _ = try await Self.cancel(client, "decline")
            let second = try #require(received.requests.withLock { $0.last?.requestIdentifier })
            #expect(received.requests.withLock { $0.count } == 2 && second != identifier)
        }
    }

    @Test("a declined offer cancels anyway: auto-renew goes off and the answer says what was shown")
    func declinedOfferCancels() async throws {
        try await withSubscriber(realtimePath: "offer") { client, fixture, _, received, chain in
            let answer = try await Self.cancel(client, nil)
            #expect(answer.retention?.shown == "promotionalOffer" && answer.retention?.stayed == false)
            #expect(fixture.store.subscription(chain)?.autoRenewStatus == false)
            #expect(received.requests.withLock { $0.count } == 1)
        }
    }

    @Test("an accepted plan switch keeps the subscription renewing, into the yearly plan")
    func acceptedSwitchKeepsRenewing() async throws {
        try await withSubscriber(realtimePath: "switch") { client, fixture, _, _, chain in
            let answer = try await Self.cancel(client, "accept")
            #expect(answer.retention?.shown == "alternateProduct" && answer.retention?.stayed == true)
            let truth = try #require(fixture.store.subscription(chain))
            #expect(truth.autoRenewStatus && truth.autoRenewProductId == "premium.yearly")
        }
    }

    @Test("an endpoint answering 400 leaves Apple's default message: even an accepting customer cancels")
    func refusedAnswerCancels() async throws {
        try await withSubscriber(realtimePath: "refuse") { client, fixture, _, received, chain in
            let answer = try await Self.cancel(client, "accept")
            #expect(answer.retention?.shown == "refused" && answer.retention?.stayed == false)
            #expect(fixture.store.subscription(chain)?.autoRenewStatus == false)
            #expect(received.requests.withLock { $0.count } == 1)
        }
    }

    @Test("onRetentionAnswer other than accept or decline is a bad request")
    func unknownAnswerIsRefused() async throws {
        try await withSubscriber(realtimePath: "offer") { client, fixture, _, _, chain in
            let response = try await client.execute(
                uri: "/device/customers/alice/cancel", method: .post, headers: [.contentType: "application/json"],
                body: ByteBuffer(string: #"{"productId":"premium.monthly","onRetentionAnswer":"maybe"}"#))
            #expect(response.status == .badRequest)
            #expect(fixture.store.subscription(chain)?.autoRenewStatus == true)
        }
    }
}
