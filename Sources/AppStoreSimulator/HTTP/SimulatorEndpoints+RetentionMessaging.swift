import AppStoreModels
import Foundation
import Hummingbird

/// Apple publishes no rate limits for the Retention Messaging API; the simulator allows what
/// Storekeeper's client budgets, 1 request per second per endpoint.
extension SimulatorAPIEndpoint {
    static let uploadImage = Self(name: "uploadImage", rate: 1)
    static let deleteImage = Self(name: "deleteImage", rate: 1)
    static let getImageList = Self(name: "getImageList", rate: 1)
    static let uploadMessage = Self(name: "uploadMessage", rate: 1)
    static let deleteMessage = Self(name: "deleteMessage", rate: 1)
    static let getMessageList = Self(name: "getMessageList", rate: 1)
    static let configureDefaultMessage = Self(name: "configureDefaultMessage", rate: 1)
    static let getDefaultMessage = Self(name: "getDefaultMessage", rate: 1)
    static let deleteDefaultMessage = Self(name: "deleteDefaultMessage", rate: 1)
    static let configureRealtimeURL = Self(name: "configureRealtimeURL", rate: 1)
    static let getRealtimeURL = Self(name: "getRealtimeURL", rate: 1)
    static let deleteRealtimeURL = Self(name: "deleteRealtimeURL", rate: 1)
    static let initiatePerformanceTest = Self(name: "initiatePerformanceTest", rate: 1)
    static let getPerformanceTestResults = Self(name: "getPerformanceTestResults", rate: 1)
}

/// The Retention Messaging API (APPLE.md): images, messages, default messages per product and
/// locale, and the real-time URL, kept in ``retentionMessaging`` for this store's app and
/// environment.
///
/// Rules, in the order they are checked:
/// 1. Identifiers in paths are UUIDs (`generalBadRequest` otherwise).
/// 2. An image is a PNG (signature, `IHDR` first) of colour type 2 (truecolour, no alpha) with
///    no `tRNS` chunk (`invalidImage`); a `FULL_SIZE` image (the default) is 3840 px wide and
///    160–2160 px high, a `BULLET_POINT` image at most 3840 × 2160 (`badRequestImageSize`);
///    an app keeps at most 2000 images (`maximumNumberOfImagesReached`); an identifier is
///    uploaded once (`imageAlreadyExists`).
/// 3. A message's header has at most 66 characters (`headerTooLong`), its body at most 144
///    (`bodyTooLong`), alt texts at most 150 (`altTextTooLong`); `ABOVE_IMAGE` needs an image
///    (`badRequestAboveImageRequiresAnImage`); each image it names exists (`imageNotFound`) and
///    is approved (`imageNotApproved`); an identifier is uploaded once (`messageAlreadyExists`).
/// 4. An image a message uses cannot be deleted (`imageInUse`); deleting a message also
///    removes the defaults that named it.
/// 5. A default message names an existing (`messageNotFound`), approved (`messageNotApproved`)
///    message, for a locale shaped like `en-US` (`invalidLocale`).
/// 6. The real-time URL is an absolute `https` URL (`badRequestRealtimeUrl`), or `http` on a
///    loopback host when the store's configuration allows it (the default).
/// 7. A performance test needs a real-time URL (`realtimeUrlNotFound`), a subscription of this
///    app (`invalidOriginalTransactionId`, `originalTransactionIdNotFound`) and no other test
///    still running (`existingPerformanceTestRun`); its results are asked for by a UUID
///    (`invalidRequestId`) the simulator issued (`performanceTestRunNotFound`).
/// Reading or deleting what is not there answers Apple's not-found code.
///
/// The performance test is real: the first Get Performance Test Results call sends the test's
/// requests (signed real-time requests for the subscription, `maxConcurrentRequests` at a time)
/// to the configured URL and answers the result measured; a call while they are in flight
/// answers `PENDING`. A request succeeds when it is answered with a 2xx within
/// `responseTimeThreshold` milliseconds (a slower answer counts as `TIMED_OUT`; the body is not
/// judged); the endpoint passes when at least `successRateThreshold` percent succeed.
extension SimulatorEndpoints {
    func addRetentionMessagingRoutes(to router: Router<BasicRequestContext>) {
        router.put("/inApps/v1/messaging/image/:id", use: api(.uploadImage) { request, context in try await uploadImage(request, context) })
        router.delete("/inApps/v1/messaging/image/:id", use: api(.deleteImage) { _, context in try deleteImage(context) })
        router.get("/inApps/v1/messaging/image/list", use: api(.getImageList) { _, _ in imageList() })
        router.put("/inApps/v1/messaging/message/:id", use: api(.uploadMessage) { request, context in try await uploadMessage(request, context) })
        router.delete("/inApps/v1/messaging/message/:id", use: api(.deleteMessage) { _, context in try deleteMessage(context) })
        router.get("/inApps/v1/messaging/message/list", use: api(.getMessageList) { _, _ in messageList() })
        router.put(
            "/inApps/v1/messaging/default/:productId/:locale",
            use: api(.configureDefaultMessage) { request, context in try await configureDefault(request, context) })
        router.get("/inApps/v1/messaging/default/:productId/:locale", use: api(.getDefaultMessage) { _, context in try defaultMessage(context) })
        router.delete(
            "/inApps/v1/messaging/default/:productId/:locale", use: api(.deleteDefaultMessage) { _, context in try deleteDefault(context) })
        router.put("/inApps/v1/messaging/realtime/url", use: api(.configureRealtimeURL) { request, _ in try await configureRealtimeURL(request) })
        router.get("/inApps/v1/messaging/realtime/url", use: api(.getRealtimeURL) { _, _ in try realtimeURL() })
        router.delete("/inApps/v1/messaging/realtime/url", use: api(.deleteRealtimeURL) { _, _ in try deleteRealtimeURL() })
        router.post(
            "/inApps/v1/messaging/performanceTest", use: api(.initiatePerformanceTest) { request, _ in try await initiatePerformanceTest(request) })
        router.get(
            "/inApps/v1/messaging/performanceTest/result/:id",
            use: api(.getPerformanceTestResults) { _, context in try await performanceTestResult(context) })
    }

    /// Apple's limits on message text, in characters.
    static let headerLimit = 66
    static let bodyLimit = 144
    static let altTextLimit = 150

    private func withApp<T>(_ body: (inout RetentionMessagingStore.App, RetentionMessagingStore.Configuration) throws -> T) rethrows -> T {
        try retentionMessaging.withApp(bundleId: store.bundleId, environment: store.environment, body)
    }

    private func identifier(_ context: BasicRequestContext) throws -> String {
        guard let text = context.parameters.get("id"), let uuid = UUID(uuidString: text) else {
            throw SimulatorAPIError(.generalBadRequest, "Invalid request. The identifier is not a UUID.")
        }
        return uuid.uuidString.lowercased()
    }

    // MARK: Images

    private func uploadImage(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try identifier(context)
        let size = request.uri.queryParameters.get("imageSize").map { ImageSize(rawValue: String($0)) } ?? .fullSize
        guard size.isKnown else { throw SimulatorAPIError(.badRequestImageSize, "Invalid request. The image size is invalid.") }
        var request = request
        let buffer = try await request.collectBody(upTo: 32 << 20)
        guard let header = Self.pngHeader(Data(buffer.readableBytesView)) else {
            throw SimulatorAPIError(.invalidImage, "Invalid request. The image is not a PNG without transparency.")
        }
        let fits =
            size == .fullSize
            ? header.width == 3840 && (160...2160).contains(header.height)
            : (1...3840).contains(header.width) && (1...2160).contains(header.height)
        guard fits else {
            throw SimulatorAPIError(.badRequestImageSize, "Invalid request. The image's dimensions don't match its size.")
        }
        try withApp { app, configuration in
            guard app.images[id] == nil else { throw SimulatorAPIError(.imageAlreadyExists, "An image with this identifier already exists.") }
            guard app.images.count < configuration.maximumImages else {
                throw SimulatorAPIError(.maximumNumberOfImagesReached, "The maximum number of images has been reached.")
            }
            app.images[id] = .init(imageIdentifier: id, imageSize: size, imageState: .pending, width: header.width, height: header.height)
            app.imageOrder.append(id)
        }
        return .empty(.ok)
    }

    private func deleteImage(_ context: BasicRequestContext) throws -> Response {
        let id = try identifier(context)
        try withApp { app, _ in
            guard app.images[id] != nil else { throw SimulatorAPIError(.imageNotFound, "The image was not found.") }
            let inUse = app.messages.values.contains { message in
                message.content.image?.imageIdentifier.lowercased() == id
                    || (message.content.bulletPoints ?? []).contains { $0.imageIdentifier.lowercased() == id }
            }
            guard !inUse else { throw SimulatorAPIError(.imageInUse, "The image is in use by a message.") }
            app.images[id] = nil
            app.imageOrder.removeAll { $0 == id }
        }
        return .empty(.ok)
    }

    private func imageList() -> Response {
        let items = withApp { app, configuration in
            let items = app.imageOrder.compactMap { app.images[$0] }.map {
                GetImageListResponseItem(imageIdentifier: $0.imageIdentifier, imageState: $0.imageState, imageSize: $0.imageSize)
            }
            if configuration.review == .onNextList {
                for id in app.imageOrder where app.images[id]?.imageState == .pending { app.images[id]?.imageState = .approved }
            }
            return items
        }
        return .appleJSON(GetImageListResponse(imageIdentifiers: items))
    }

    /// The width and height of a PNG with no alpha: colour type 2 and no `tRNS` chunk; nil for
    /// anything else (not a PNG, `IHDR` not first, an alpha channel or transparency).
    static func pngHeader(_ data: Data) -> (width: Int, height: Int)? {
        let bytes = [UInt8](data)
        let signature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        guard bytes.count >= 33, Array(bytes[0..<8]) == signature else { return nil }
        func number(_ at: Int) -> Int { bytes[at..<at + 4].reduce(0) { $0 << 8 | Int($1) } }
        func type(_ at: Int) -> String { String(decoding: bytes[at..<at + 4], as: UTF8.self) }
        guard number(8) == 13, type(12) == "IHDR" else { return nil }
        let (width, height, colourType) = (number(16), number(20), bytes[25])
        guard width > 0, height > 0, colourType == 2 else { return nil }
        var offset = 33
        while offset + 8 <= bytes.count {
            let length = number(offset)
            let name = type(offset + 4)
            if name == "tRNS" { return nil }
            if name == "IEND" { break }
            offset += 12 + length
        }
        return (width, height)
    }

    // MARK: Messages

    private func uploadMessage(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let id = try identifier(context)
        let body = try await decodeBody(UploadMessageRequestBody.self, from: request)
        guard body.header.count <= Self.headerLimit else { throw SimulatorAPIError(.headerTooLong, "Invalid request. The header is too long.") }
        guard body.body.count <= Self.bodyLimit else { throw SimulatorAPIError(.bodyTooLong, "Invalid request. The body is too long.") }
        let altTexts = [body.image?.altText].compactMap { $0 } + (body.bulletPoints ?? []).map(\.altText)
        guard altTexts.allSatisfy({ $0.count <= Self.altTextLimit }) else {
            throw SimulatorAPIError(.altTextTooLong, "Invalid request. The alt text is too long.")
        }
        if body.headerPosition == .aboveImage, body.image == nil {
            throw SimulatorAPIError(.badRequestAboveImageRequiresAnImage, "Invalid request. A header above the image requires an image.")
        }
        let images = [body.image?.imageIdentifier].compactMap { $0 } + (body.bulletPoints ?? []).map(\.imageIdentifier)
        try withApp { app, _ in
            for image in images {
                guard let uuid = UUID(uuidString: image), let stored = app.images[uuid.uuidString.lowercased()] else {
                    throw SimulatorAPIError(.imageNotFound, "The image was not found.")
                }
                guard stored.imageState == .approved else { throw SimulatorAPIError(.imageNotApproved, "The image is not approved.") }
            }
            guard app.messages[id] == nil else {
                throw SimulatorAPIError(.messageAlreadyExists, "A message with this identifier already exists.")
            }
            app.messages[id] = .init(messageIdentifier: id, content: body, messageState: .pending)
            app.messageOrder.append(id)
        }
        return .empty(.ok)
    }

    private func deleteMessage(_ context: BasicRequestContext) throws -> Response {
        let id = try identifier(context)
        try withApp { app, _ in
            guard app.messages[id] != nil else { throw SimulatorAPIError(.messageNotFound, "The message was not found.") }
            app.messages[id] = nil
            app.messageOrder.removeAll { $0 == id }
            for (product, locales) in app.defaults {
                app.defaults[product] = locales.filter { $0.value != id }
            }
        }
        return .empty(.ok)
    }

    private func messageList() -> Response {
        let items = withApp { app, configuration in
            let items = app.messageOrder.compactMap { app.messages[$0] }.map {
                GetMessageListResponseItem(messageIdentifier: $0.messageIdentifier, messageState: $0.messageState)
            }
            if configuration.review == .onNextList {
                for id in app.messageOrder where app.messages[id]?.messageState == .pending { app.messages[id]?.messageState = .approved }
            }
            return items
        }
        return .appleJSON(GetMessageListResponse(messageIdentifiers: items))
    }

    // MARK: Default messages

    /// The product and a locale shaped like Apple's (`en`, `en-US`, `zh-Hans-CN`).
    private func productAndLocale(_ context: BasicRequestContext) throws -> (String, String) {
        guard let productId = context.parameters.get("productId"), !productId.isEmpty, productId.count <= 255 else {
            throw SimulatorAPIError(.invalidProductId, "Invalid request. The product id is invalid.")
        }
        guard let locale = context.parameters.get("locale"), Self.isLocale(locale) else {
            throw SimulatorAPIError(.invalidLocale, "Invalid request. The locale is invalid.")
        }
        return (productId, locale)
    }

    /// `language[-Script][-REGION]`: 2–3 lowercase letters, an optional 4-letter script with a
    /// capital first, an optional 2-letter upper-case or 3-digit region.
    static func isLocale(_ text: String) -> Bool {
        var parts = text.split(separator: "-", omittingEmptySubsequences: false)[...]
        guard let language = parts.popFirst(), (2...3).contains(language.count), language.allSatisfy({ $0.isASCII && $0.isLowercase }) else {
            return false
        }
        if let script = parts.first, script.count == 4, script.first?.isUppercase == true,
            script.allSatisfy({ $0.isASCII && $0.isLetter }), script.dropFirst().allSatisfy(\.isLowercase)
        {
            parts.removeFirst()
        }
        if let region = parts.first {
            let letters = region.count == 2 && region.allSatisfy { $0.isASCII && $0.isUppercase }
            let digits = region.count == 3 && region.allSatisfy { $0.isASCII && $0.isNumber }
            guard letters || digits else { return false }
            parts.removeFirst()
        }
        return parts.isEmpty
    }

    private func configureDefault(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        let (productId, locale) = try productAndLocale(context)
        let body = try await decodeBody(DefaultConfigurationRequest.self, from: request)
        try withApp { app, _ in
            guard let text = body.messageIdentifier, let uuid = UUID(uuidString: text), let message = app.messages[uuid.uuidString.lowercased()]
            else {
                throw SimulatorAPIError(.messageNotFound, "The message was not found.")
            }
            guard message.messageState == .approved else { throw SimulatorAPIError(.messageNotApproved, "The message is not approved.") }
            app.defaults[productId, default: [:]][locale] = message.messageIdentifier
        }
        return .empty(.ok)
    }

    private func defaultMessage(_ context: BasicRequestContext) throws -> Response {
        let (productId, locale) = try productAndLocale(context)
        let id = withApp { app, _ in app.defaults[productId]?[locale] }
        guard let id else { throw SimulatorAPIError(.defaultMessageNotFound, "The default message was not found.") }
        return .appleJSON(DefaultConfigurationResponse(messageIdentifier: id))
    }

    private func deleteDefault(_ context: BasicRequestContext) throws -> Response {
        let (productId, locale) = try productAndLocale(context)
        try withApp { app, _ in
            guard app.defaults[productId]?[locale] != nil else {
                throw SimulatorAPIError(.defaultMessageNotFound, "The default message was not found.")
            }
            app.defaults[productId]?[locale] = nil
        }
        return .empty(.ok)
    }

    // MARK: Real-time URL

    private func configureRealtimeURL(_ request: Request) async throws -> Response {
        let body = try await decodeBody(RealtimeUrlRequest.self, from: request)
        try withApp { app, configuration in
            guard let url = URL(string: body.realtimeURL), let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased(), !host.isEmpty
            else { throw SimulatorAPIError(.badRequestRealtimeUrl, "Invalid request. The real-time URL is invalid.") }
            let loopback = ["127.0.0.1", "localhost", "::1", "[::1]"].contains(host)
            let allowed =
                scheme == "https" || (scheme == "http" && (configuration.allowsAnyHTTP || (configuration.allowsLoopbackHTTP && loopback)))
            guard allowed else { throw SimulatorAPIError(.badRequestRealtimeUrl, "Invalid request. The real-time URL must use HTTPS.") }
            app.realtimeURL = url
        }
        return .empty(.ok)
    }

    private func realtimeURL() throws -> Response {
        guard let url = withApp({ app, _ in app.realtimeURL }) else {
            throw SimulatorAPIError(.realtimeUrlNotFound, "The real-time URL was not found.")
        }
        return .appleJSON(RealtimeUrlResponse(realtimeURL: url.absoluteString))
    }

    private func deleteRealtimeURL() throws -> Response {
        try withApp { app, _ in
            guard app.realtimeURL != nil else { throw SimulatorAPIError(.realtimeUrlNotFound, "The real-time URL was not found.") }
            app.realtimeURL = nil
        }
        return .empty(.ok)
    }

    // MARK: Performance test

    private func initiatePerformanceTest(_ request: Request) async throws -> Response {
        let body = try await decodeBody(PerformanceTestRequest.self, from: request)
        let chain = body.originalTransactionId
        guard !chain.isEmpty, chain.count <= 64, chain.allSatisfy({ $0.isASCII && $0.isNumber }) else {
            throw SimulatorAPIError(.invalidOriginalTransactionId, "Invalid original transaction id.")
        }
        guard let subscription = store.subscription(chain) else {
            throw SimulatorAPIError(.originalTransactionIdNotFound, "Original transaction id not found.")
        }
        let requestId = UUID().uuidString.lowercased()
        let config = try withApp { app, configuration in
            guard let target = app.realtimeURL else { throw SimulatorAPIError(.realtimeUrlNotFound, "The real-time URL was not found.") }
            guard !app.performanceTests.values.contains(where: { $0.result == nil }) else {
                throw SimulatorAPIError(.existingPerformanceTestRun, "A performance test is already running.")
            }
            app.performanceTests[requestId] = .init(
                originalTransactionId: chain, productId: subscription.productId, target: target, config: configuration.performanceTest)
            return configuration.performanceTest
        }
        return .appleJSON(PerformanceTestResponse(config: config, requestId: requestId))
    }

    private func performanceTestResult(_ context: BasicRequestContext) async throws -> Response {
        guard let text = context.parameters.get("id"), let uuid = UUID(uuidString: text) else {
            throw SimulatorAPIError(.invalidRequestId, "Invalid request. The request id is invalid.")
        }
        let id = uuid.uuidString.lowercased()
        let run = try withApp { app, _ -> RetentionMessagingStore.PerformanceTestRun? in
            guard let run = app.performanceTests[id] else {
                throw SimulatorAPIError(.performanceTestRunNotFound, "The performance test run was not found.")
            }
            if run.result != nil || run.isRunning { return run }
            app.performanceTests[id]?.isRunning = true
            return nil
        }
        if let run {
            let pending = PerformanceTestResultResponse(
                config: run.config, target: run.target.absoluteString, result: .pending,
                numPending: Int32(clamping: run.config.totalRequests ?? 0))
            return .appleJSON(run.result ?? pending)
        }
        let result = await sendPerformanceTest(id)
        withApp { app, _ in
            app.performanceTests[id]?.result = result
            app.performanceTests[id]?.isRunning = false
        }
        return .appleJSON(result)
    }

    /// Sends the test's requests and measures them.
    private func sendPerformanceTest(_ id: String) async -> PerformanceTestResultResponse {
        guard let run = withApp({ app, _ in app.performanceTests[id] }) else { return PerformanceTestResultResponse(result: .fail) }
        let total = Int(max(1, min(run.config.totalRequests ?? 1, 10_000)))
        let concurrency = Int(max(1, min(run.config.maxConcurrentRequests ?? 1, 100)))
        let threshold = Double(run.config.responseTimeThreshold ?? 1000)
        let bodies = (0..<total).map { _ -> Data? in
            let payload = DecodedRealtimeRequestBody(
                originalTransactionId: run.originalTransactionId, appAppleId: store.appAppleId, productId: run.productId, userLocale: "en-US",
                requestIdentifier: UUID().uuidString.lowercased(), signedDate: clock.now, environment: store.environment)
            guard let signed = try? signer.certificateAuthority.signRealtimeRequest(payload) else { return nil }
            return try? JSONEncoder().encode(RealtimeRequestBody(signedPayload: signed))
        }
        var outcomes: [(milliseconds: Double, result: NotificationTransportResult)] = []
        let timeout = Duration.milliseconds(Int64(threshold) * 5)
        outcomes =
            (try? await AsyncHTTPNotificationTransport.withOwnedClient(configuration: .init(timeout: timeout)) { transport in
                var outcomes: [(Double, NotificationTransportResult)] = []
                for start in stride(from: 0, to: total, by: concurrency) {
                    let batch = bodies[start..<min(total, start + concurrency)]
                    await withTaskGroup(of: (Double, NotificationTransportResult).self) { group in
                        for body in batch {
                            group.addTask {
                                guard let body else { return (0, .failure(.other)) }
                                let clock = ContinuousClock()
                                let began = clock.now
                                let result = await transport.post(body, to: run.target, headers: ["Content-Type": "application/json"])
                                let elapsed = began.duration(to: clock.now)
                                return (Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15, result)
                            }
                        }
                        for await outcome in group { outcomes.append(outcome) }
                    }
                }
                return outcomes
            }) ?? []
        var failures: [String: Int32] = [:]
        var times: [Double] = []
        var succeeded = 0
        for (milliseconds, result) in outcomes {
            switch result {
            case .response(let status) where (200..<300).contains(status):
                times.append(milliseconds)
                if milliseconds <= threshold { succeeded += 1 } else { failures[SendAttemptResult.timedOut.rawValue, default: 0] += 1 }
            case .response:
                times.append(milliseconds)
                failures[SendAttemptResult.unsuccessfulHttpResponseCode.rawValue, default: 0] += 1
            case .failure(let reason):
                failures[reason.rawValue, default: 0] += 1
            }
        }
        let rate = Int32(succeeded * 100 / total)
        times.sort()
        func percentile(_ p: Double) -> Int64? {
            guard !times.isEmpty else { return nil }
            return Int64(times[min(times.count - 1, Int((p * Double(times.count)).rounded(.up)) - 1)].rounded())
        }
        let average = times.isEmpty ? nil : Int64((times.reduce(0, +) / Double(times.count)).rounded())
        return PerformanceTestResultResponse(
            config: run.config, target: run.target.absoluteString, result: rate >= run.config.successRateThreshold ?? 100 ? .pass : .fail,
            successRate: rate, numPending: 0,
            responseTimes: PerformanceTestResponseTimes(
                average: average, p50: percentile(0.5), p90: percentile(0.9), p95: percentile(0.95), p99: percentile(0.99)),
            failures: failures)
    }
}
