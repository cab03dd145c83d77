import AppStoreModels
import AppStoreServerAPI
import AsyncHTTPClient
import Foundation
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import AppStoreSimulator

/// The Retention Messaging API through Storekeeper's real client against the simulator over
/// loopback: every endpoint and every rule of ``SimulatorEndpoints`` listed in its extension.
@Suite("Simulated App Store: Retention Messaging endpoints over loopback")
struct SimulatorRetentionMessagingTests {
    /// A minimal PNG: signature, `IHDR` (8-bit, the colour type given) and the chunks given,
    /// then `IEND`. CRCs are zero; the simulator reads only the header and chunk names.
    static func png(width: Int, height: Int, colourType: UInt8 = 2, chunks: [String] = []) -> Data {
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        func be(_ value: Int) -> [UInt8] { [24, 16, 8, 0].map { UInt8((value >> $0) & 0xFF) } }
        func chunk(_ name: String, _ data: [UInt8]) { bytes += be(data.count) + Array(name.utf8) + data + [0, 0, 0, 0] }
        chunk("IHDR", be(width) + be(height) + [8, colourType, 0, 0, 0])
        for name in chunks { chunk(name, [0, 0, 0, 0, 0, 0]) }
        chunk("IDAT", [0])
        chunk("IEND", [])
        return Data(bytes)
    }

    static let fullSize = png(width: 3840, height: 1080)

    /// Runs `body` with a client for a fresh, empty simulated app.
    func withClient(
        environment: AppStoreEnvironment = .production,
        _ body: @Sendable (AppStoreServerAPIClient, SimulatorEndpoints) async throws -> Void
    ) async throws {
        let fixture = try SimulatorHTTPFixture(environment: environment, populate: false)
        try await fixture.withServer { url, endpoints in
            try await body(try fixture.client(baseURL: url), endpoints)
        }
    }

    /// The Apple error code a call fails with.
    func code(_ call: @Sendable () async throws -> Void) async -> APIErrorCode? {
        do {
            try await call()
            return nil
        } catch let error as AppStoreServerAPIError {
            return error.apiErrorCode
        } catch {
            return nil
        }
    }

    @Test func imagesAreUploadedPendingApprovedByTheNextListAndDeleted() async throws {
        try await withClient { client, _ in
            let (full, bullet) = (UUID(), UUID())
            try await client.uploadImage(imageIdentifier: full, image: Self.fullSize, imageSize: nil)
            try await client.uploadImage(imageIdentifier: bullet, image: Self.png(width: 120, height: 120), imageSize: .bulletPoint)
            let first = try await client.getImageList().imageIdentifiers ?? []
            #expect(first.map(\.imageIdentifier) == [full, bullet].map { $0.uuidString.lowercased() })
            #expect(first.map(\.imageState) == [.pending, .pending])
            #expect(first.map(\.imageSize) == [.fullSize, .bulletPoint])
            #expect(try await client.getImageList().imageIdentifiers?.map(\.imageState) == [.approved, .approved])
            #expect(
                await code { try await client.uploadImage(imageIdentifier: full, image: Self.fullSize, imageSize: .fullSize) } == .imageAlreadyExists)
            try await client.deleteImage(imageIdentifier: full)
            #expect(try await client.getImageList().imageIdentifiers?.map(\.imageIdentifier) == [bullet.uuidString.lowercased()])
            #expect(await code { try await client.deleteImage(imageIdentifier: full) } == .imageNotFound)
        }
    }

    @Test func imagesMustBeOpaquePNGsOfApplesSizes() async throws {
        try await withClient { client, _ in
            let refusals: [(Data, ImageSize?, APIErrorCode)] = [
                (Data("not a png".utf8), nil, .invalidImage),
                (Self.png(width: 3840, height: 1080, colourType: 6), nil, .invalidImage),  // RGBA
                (Self.png(width: 3840, height: 1080, chunks: ["tRNS"]), nil, .invalidImage),  // transparency
                (Self.png(width: 3840, height: 1080, colourType: 3), nil, .invalidImage),  // palette
                (Self.png(width: 3839, height: 1080), nil, .badRequestImageSize),
                (Self.png(width: 3840, height: 159), .fullSize, .badRequestImageSize),
                (Self.png(width: 3840, height: 2161), nil, .badRequestImageSize),
                (Self.png(width: 4000, height: 100), .bulletPoint, .badRequestImageSize),
                (Self.fullSize, ImageSize(rawValue: "HUGE"), .badRequestImageSize),
            ]
            for (image, size, expected) in refusals {
                #expect(await code { try await client.uploadImage(imageIdentifier: UUID(), image: image, imageSize: size) } == expected)
            }
            for height in [160, 2160] {
                try await client.uploadImage(imageIdentifier: UUID(), image: Self.png(width: 3840, height: height), imageSize: .fullSize)
            }
            #expect(try await client.getImageList().imageIdentifiers?.count == 2)
        }
    }

    @Test func anAppKeepsAtMost2000Images() async throws {
        try await withClient { client, endpoints in
            #expect(RetentionMessagingStore.Configuration().maximumImages == 2000)
            for _ in 0..<2000 {
                try await client.uploadImage(imageIdentifier: UUID(), image: Self.fullSize, imageSize: nil)
            }
            #expect(
                await code { try await client.uploadImage(imageIdentifier: UUID(), image: Self.fullSize, imageSize: nil) }
                    == .maximumNumberOfImagesReached)
            let images = endpoints.retentionMessaging.images(bundleId: SimulatorHTTPFixture.bundleId, environment: .production)
            #expect(images.count == 2000)
            // The same app in the sandbox has its own content.
            #expect(endpoints.retentionMessaging.images(bundleId: SimulatorHTTPFixture.bundleId, environment: .sandbox).isEmpty)
        }
    }

    @Test func messagesObeyApplesTextLimitsAndNameApprovedImages() async throws {
        try await withClient { client, endpoints in
            let image = UUID()
            try await client.uploadImage(imageIdentifier: image, image: Self.fullSize, imageSize: nil)
            let picture = UploadMessageImage(imageIdentifier: image.uuidString, altText: "A cat")
            func upload(_ body: UploadMessageRequestBody, id: UUID = UUID()) async -> APIErrorCode? {
                await code { try await client.uploadMessage(messageIdentifier: id, body: body) }
            }
            #expect(await upload(.init(header: "Stay", body: "Please", image: picture)) == .imageNotApproved)
            _ = try await client.getImageList()  // the review approves it
            #expect(await upload(.init(header: String(repeating: "h", count: 67), body: "b")) == .headerTooLong)
            #expect(await upload(.init(header: "h", body: String(repeating: "b", count: 145))) == .bodyTooLong)
            let longAlt = UploadMessageImage(imageIdentifier: image.uuidString, altText: String(repeating: "a", count: 151))
            #expect(await upload(.init(header: "h", body: "b", image: longAlt)) == .altTextTooLong)
            #expect(await upload(.init(header: "h", body: "b", headerPosition: .aboveImage)) == .badRequestAboveImageRequiresAnImage)
            let missing = UploadMessageImage(imageIdentifier: UUID().uuidString, altText: "gone")
            #expect(await upload(.init(header: "h", body: "b", image: missing)) == .imageNotFound)
            let bullet = BulletPoint(text: "More", imageIdentifier: UUID().uuidString, altText: "x")
            #expect(await upload(.init(header: "h", body: "b", bulletPoints: [bullet])) == .imageNotFound)

            // At the limits exactly, with an approved image: accepted.
            let message = UUID()
            let fitting = UploadMessageRequestBody(
                header: String(repeating: "h", count: 66), body: String(repeating: "b", count: 144),
                image: UploadMessageImage(imageIdentifier: image.uuidString, altText: String(repeating: "a", count: 150)),
                headerPosition: .aboveImage)
            #expect(await upload(fitting, id: message) == nil)
            #expect(await upload(fitting, id: message) == .messageAlreadyExists)
            #expect(endpoints.retentionMessaging.approvedMessages(bundleId: SimulatorHTTPFixture.bundleId, environment: .production).isEmpty)
            #expect(try await client.getMessageList().messageIdentifiers?.map(\.messageState) == [.pending])
            #expect(try await client.getMessageList().messageIdentifiers?.map(\.messageState) == [.approved])
            let approved = endpoints.retentionMessaging.approvedMessages(bundleId: SimulatorHTTPFixture.bundleId, environment: .production)
            #expect(approved.map(\.messageIdentifier) == [message.uuidString.lowercased()])
            #expect(approved.first?.content == fitting)

            // An image in use stays; once its message is gone it can be deleted.
            #expect(await code { try await client.deleteImage(imageIdentifier: image) } == .imageInUse)
            try await client.deleteMessage(messageIdentifier: message)
            #expect(await code { try await client.deleteMessage(messageIdentifier: message) } == .messageNotFound)
            try await client.deleteImage(imageIdentifier: image)
        }
    }

    @Test func defaultMessagesNameApprovedMessagesPerProductAndLocale() async throws {
        try await withClient { client, _ in
            let message = UUID()
            try await client.uploadMessage(messageIdentifier: message, body: .init(header: "Stay", body: "Half price for 3 months"))
            let request = DefaultConfigurationRequest(messageIdentifier: message.uuidString)
            #expect(
                await code { try await client.configureDefaultMessage(productId: "pro.monthly", locale: "en-US", request: request) }
                    == .messageNotApproved)
            _ = try await client.getMessageList()
            let unknown = DefaultConfigurationRequest(messageIdentifier: UUID().uuidString)
            #expect(
                await code { try await client.configureDefaultMessage(productId: "pro.monthly", locale: "en-US", request: unknown) }
                    == .messageNotFound)
            for locale in ["english", "EN-us", "en_US", "en-USA", "e"] {
                #expect(
                    await code { try await client.configureDefaultMessage(productId: "pro.monthly", locale: locale, request: request) }
                        == .invalidLocale, "\(locale)")
            }
            #expect(await code { _ = try await client.getDefaultMessage(productId: "pro.monthly", locale: "en-US") } == .defaultMessageNotFound)
            for locale in ["en-US", "fr", "zh-Hans-CN", "es-419"] {
                try await client.configureDefaultMessage(productId: "pro.monthly", locale: locale, request: request)
            }
            #expect(
                try await client.getDefaultMessage(productId: "pro.monthly", locale: "en-US").messageIdentifier == message.uuidString.lowercased())
            #expect(await code { _ = try await client.getDefaultMessage(productId: "pro.yearly", locale: "en-US") } == .defaultMessageNotFound)
            try await client.deleteDefaultMessage(productId: "pro.monthly", locale: "en-US")
            #expect(await code { try await client.deleteDefaultMessage(productId: "pro.monthly", locale: "en-US") } == .defaultMessageNotFound)
            // Deleting the message removes the defaults that named it.
            try await client.deleteMessage(messageIdentifier: message)
            #expect(await code { _ = try await client.getDefaultMessage(productId: "pro.monthly", locale: "fr") } == .defaultMessageNotFound)
        }
    }

    @Test func theRealtimeURLIsHTTPSExceptOnLoopbackWhenAllowed() async throws {
        try await withClient(environment: .sandbox) { client, endpoints in
            #expect(await code { _ = try await client.getRealtimeURL() } == .realtimeUrlNotFound)
            #expect(await code { try await client.deleteRealtimeURL() } == .realtimeUrlNotFound)
            for bad in ["http://example.com/retention", "not a url", "ftp://example.com/x", "/relative"] {
                #expect(await code { try await client.configureRealtimeURL(request: .init(realtimeURL: bad)) } == .badRequestRealtimeUrl, "\(bad)")
            }
            try await client.configureRealtimeURL(request: .init(realtimeURL: "https://example.com/retention"))
            #expect(try await client.getRealtimeURL().realtimeURL == "https://example.com/retention")
            try await client.configureRealtimeURL(request: .init(realtimeURL: "http://127.0.0.1:8080/retention"))
            let store = endpoints.retentionMessaging
            #expect(
                store.realtimeURL(bundleId: SimulatorHTTPFixture.bundleId, environment: .sandbox)?.absoluteString == "http://127.0.0.1:8080/retention"
            )
            #expect(store.realtimeURL(bundleId: SimulatorHTTPFixture.bundleId, environment: .production) == nil)

            store.configuration.allowsLoopbackHTTP = false
            #expect(
                await code { try await client.configureRealtimeURL(request: .init(realtimeURL: "http://localhost:8080/r")) } == .badRequestRealtimeUrl
            )
            store.configuration.allowsAnyHTTP = true
            try await client.configureRealtimeURL(request: .init(realtimeURL: "http://example.com/r"))
            try await client.deleteRealtimeURL()
            #expect(await code { _ = try await client.getRealtimeURL() } == .realtimeUrlNotFound)
        }
    }

    @Test func aManualReviewKeepsContentPendingUntilDecided() async throws {
        try await withClient { client, endpoints in
            let store = endpoints.retentionMessaging
            store.configuration.review = .manual
            let (image, message) = (UUID(), UUID())
            try await client.uploadImage(imageIdentifier: image, image: Self.fullSize, imageSize: nil)
            try await client.uploadMessage(messageIdentifier: message, body: .init(header: "h", body: "b"))
            _ = try await client.getImageList()
            #expect(try await client.getImageList().imageIdentifiers?.map(\.imageState) == [.pending])
            #expect(try await client.getMessageList().messageIdentifiers?.map(\.messageState) == [.pending])
            let bundle = SimulatorHTTPFixture.bundleId
            #expect(store.review(imageIdentifier: image, bundleId: bundle, environment: .production, state: .rejected))
            #expect(store.review(messageIdentifier: message, bundleId: bundle, environment: .production, state: .approved))
            #expect(!store.review(messageIdentifier: UUID(), bundleId: bundle, environment: .production, state: .approved))
            #expect(try await client.getImageList().imageIdentifiers?.map(\.imageState) == [.rejected])
            #expect(try await client.getMessageList().messageIdentifiers?.map(\.messageState) == [.approved])
            let withRejected = UploadMessageRequestBody(header: "h", body: "b", image: .init(imageIdentifier: image.uuidString, altText: "x"))
            #expect(await code { try await client.uploadMessage(messageIdentifier: UUID(), body: withRejected) } == .imageNotApproved)
        }
    }

    @Test func identifiersMustBeUUIDsAndTokensAreChecked() async throws {
        let fixture = try SimulatorHTTPFixture(populate: false)
        try await fixture.withServer { url, _ in
            let issuer = APITokenIssuer(
                key: InAppPurchaseKey(keyId: SimulatorHTTPFixture.keyId, privateKey: fixture.keys.apiKey), issuerId: SimulatorHTTPFixture.issuerId,
                bundleId: SimulatorHTTPFixture.bundleId)
            let token = try await issuer.token(now: Date())
            func delete(_ path: String, authorization: String?) async throws -> (status: UInt, body: String) {
                var request = HTTPClientRequest(url: url.absoluteString + path)
                request.method = .DELETE
                if let authorization { request.headers.add(name: "Authorization", value: authorization) }
                let response = try await HTTPClient.shared.execute(request, timeout: .seconds(60))
                let body = try await response.body.collect(upTo: 1 << 16)
                return (response.status.code, String(decoding: body.readableBytesView, as: UTF8.self))
            }
            let unauthenticated = try await delete("/inApps/v1/messaging/message/\(UUID())", authorization: nil)
            #expect(unauthenticated.status == 401)
            let notUUID = try await delete("/inApps/v1/messaging/message/not-a-uuid", authorization: "Bearer \(token)")
            #expect(notUUID.status == 400)
            #expect(notUUID.body.contains("4000000"))
            let other = try fixture.client(baseURL: url, bundleId: "com.example.other")
            let refused = await #expect(throws: AppStoreServerAPIError.self) { _ = try await other.getMessageList() }
            #expect(refused?.httpStatus == 401)
        }
    }

    @Test func messagingEndpointsAreRateLimited() async throws {
        // 1 request per second: 3,600 an hour; 0.001 of it is 3.
        let fixture = try SimulatorHTTPFixture(populate: false) { $0.rateLimits = SimulatorRateLimits(multiplier: 0.001) }
        try await fixture.withServer { url, _ in
            let client = try fixture.client(baseURL: url)
            for _ in 0..<3 { _ = try await client.getMessageList() }
            let limited = await #expect(throws: AppStoreServerAPIError.self) { _ = try await client.getMessageList() }
            #expect(limited?.apiErrorCode == .rateLimitExceeded)
            _ = try await client.getImageList()
        }
    }

    @Test func aPerformanceTestSendsSignedRequestsToTheRealtimeURLAndMeasuresThem() async throws {
        let fixture = try SimulatorHTTPFixture()
        let received = Mutex<[String]>([])
        let router = Router()
        router.post("/retention") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            let decoded = try JSONDecoder().decode(RealtimeRequestBody.self, from: Data(body.readableBytesView))
            received.withLock { $0.append(decoded.signedPayload ?? "") }
            return Response(status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: "{}")))
        }
        router.post("/slow") { _, _ -> Response in
            try await Task.sleep(for: .milliseconds(600))
            return Response(status: .ok)
        }
        router.post("/broken") { _, _ in Response(status: .internalServerError) }
        let realtime = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
        try await realtime.test(.live) { realtimeClient in
            let port = try #require(realtimeClient.port)
            try await fixture.withServer { url, endpoints in
                // A loaded machine answers slower than the simulator's 1,000 ms: the test's
                // threshold is generous, so only the endpoint's answers decide.
                var configuration = endpoints.retentionMessaging.configuration
                configuration.performanceTest.responseTimeThreshold = 60_000
                endpoints.retentionMessaging.configuration = configuration
                let client = try fixture.client(baseURL: url)
                let chain = SimulatorHTTPFixture.weeklyOriginal
                #expect(
                    await code { _ = try await client.initiatePerformanceTest(request: .init(originalTransactionId: chain)) } == .realtimeUrlNotFound)
                try await client.configureRealtimeURL(request: .init(realtimeURL: "http://127.0.0.1:\(port)/retention"))
                #expect(
                    await code { _ = try await client.initiatePerformanceTest(request: .init(originalTransactionId: "abc")) }
                        == .invalidOriginalTransactionId)
                #expect(
                    await code { _ = try await client.initiatePerformanceTest(request: .init(originalTransactionId: "999999")) }
                        == .originalTransactionIdNotFound)

                let started = try await client.initiatePerformanceTest(request: .init(originalTransactionId: chain))
                #expect(started.config?.totalRequests == 20 && started.config?.maxConcurrentRequests == 4)
                let requestId = try #require(started.requestId)
                #expect(
                    await code { _ = try await client.initiatePerformanceTest(request: .init(originalTransactionId: chain)) }
                        == .existingPerformanceTestRun)
                let result = try await client.getPerformanceTestResults(requestId: requestId)
                #expect(result.result == .pass && result.successRate == 100 && result.numPending == 0)
                #expect(result.target == "http://127.0.0.1:\(port)/retention")
                #expect(result.failures?.isEmpty == true)
                #expect(result.responseTimes?.p50 != nil && result.responseTimes?.p99 != nil)
                #expect(try await client.getPerformanceTestResults(requestId: requestId) == result)
                // Twenty requests, each a real-time request Apple's verifier accepts, for the subscription.
                let payloads = received.withLock { $0 }
                #expect(payloads.count == 20)
                let decoded = try #require(await fixture.verifier().verifyAndDecodeRealtimeRequest(payloads[0], now: fixture.clock.now).payload)
                #expect(decoded.originalTransactionId == chain && decoded.productId == "pro.weekly")
                #expect(decoded.appAppleId == SimulatorHTTPFixture.appAppleId)
                #expect(await code { _ = try await client.getPerformanceTestResults(requestId: "nope") } == .invalidRequestId)
                #expect(await code { _ = try await client.getPerformanceTestResults(requestId: UUID().uuidString) } == .performanceTestRunNotFound)

                // While the requests are in flight the result is pending.
                try await client.configureRealtimeURL(request: .init(realtimeURL: "http://127.0.0.1:\(port)/slow"))
                let slow = try #require(try await client.initiatePerformanceTest(request: .init(originalTransactionId: chain)).requestId)
                async let measured = client.getPerformanceTestResults(requestId: slow)
                try await Task.sleep(for: .milliseconds(1_000))
                let pending = try await client.getPerformanceTestResults(requestId: slow)
                #expect(pending.result == .pending && pending.numPending == 20)
                #expect(try await measured.result == .pass)

                // An endpoint answering errors fails.
                try await client.configureRealtimeURL(request: .init(realtimeURL: "http://127.0.0.1:\(port)/broken"))
                let broken = try #require(try await client.initiatePerformanceTest(request: .init(originalTransactionId: chain)).requestId)
                let failed = try await client.getPerformanceTestResults(requestId: broken)
                #expect(failed.result == .fail && failed.successRate == 0)
                #expect(failed.failures == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE": 20])
            }
        }
    }

    @Test func pngHeadersAreReadFromTheBytes() {
        #expect(SimulatorEndpoints.pngHeader(Self.png(width: 3840, height: 200))! == (3840, 200))
        #expect(SimulatorEndpoints.pngHeader(Data(Self.png(width: 3840, height: 200).prefix(20))) == nil)
        #expect(SimulatorEndpoints.isLocale("pt-BR") && !SimulatorEndpoints.isLocale("pt-"))
    }
}
