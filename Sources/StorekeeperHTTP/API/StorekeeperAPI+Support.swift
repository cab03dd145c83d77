import AppStoreModels
import AppStoreServerAPI
import AppStoreVerification
import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperStore

extension StorekeeperAPI {
    /// Support tools (admin key): renewal-date extension, app account token, test notification.
    package func addSupportRoutes(to admin: RouterGroup<APIRequestContext>) {
        admin.post("subscriptions/:originalTransactionId/extend", use: extendRenewal)
            .put("subscriptions/:originalTransactionId/appAccountToken", use: setAppAccountToken)
            .post("notifications/test", use: requestTestNotification)
            .get("notifications/test/:token", use: testNotificationStatus)
    }

    package struct ExtendRequest: Decodable {
        package var extendByDays: Int32
        /// Apple's reason: 0 undeclared, 1 customer satisfaction, 2 other, 3 service issue.
        package var extendReasonCode: Int32?
        /// Makes the request idempotent at Apple; generated when absent.
        package var requestIdentifier: String?
        package var reason: String

        package init(extendByDays: Int32, extendReasonCode: Int32? = nil, requestIdentifier: String? = nil, reason: String) {
            self.extendByDays = extendByDays
            self.extendReasonCode = extendReasonCode
            self.requestIdentifier = requestIdentifier
            self.reason = reason
        }
    }

    package struct TokenRequest: Decodable {
        package var appAccountToken: String
        package var reason: String

        package init(appAccountToken: String, reason: String) {
            self.appAccountToken = appAccountToken
            self.reason = reason
        }
    }

    /// The app's Apple client, or 409 when the app has no App Store Server API credentials.
    package func appleClient(_ app: AppRuntime) throws -> any AppStoreServerAPIClientProtocol {
        guard let client = appleClients.client(for: app.id) else {
            throw APIError(.conflict, code: .noAppStoreCredentials, message: "the app has no appStoreServerAPI credentials configured")
        }
        return client
    }

    /// Runs an Apple call, turning Apple's refusals into 502 with Apple's reason.
    package func callApple<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        do {
            return try await body()
        } catch let error as AppStoreServerAPIError {
            throw APIError(.badGateway, code: .appStoreError, message: error.description)
        }
    }

    package func chainParameter(_ context: APIRequestContext) throws -> String {
        try Self.checkedChain(try context.pathParameter("originalTransactionId"))
    }

    package static func checkedChain(_ chain: String) throws -> String {
        guard (1...128).contains(chain.utf8.count), chain.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
            throw APIError.badRequest("originalTransactionId must be 1 to 128 letters or digits")
        }
        return chain
    }

    package static func checkedReason(_ text: String) throws -> String {
        let reason = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...1000).contains(reason.count) else { throw APIError.badRequest("reason must be 1 to 1000 characters") }
        return reason
    }

    /// `POST /v1/apps/{appId}/subscriptions/{originalTransactionId}/extend` (admin): extends the
    /// renewal date at Apple, audits it and schedules an immediate refresh of the chain.
    package func extendRenewal(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (app, principal) = (try context.caller().app, try context.caller().principal)
        let chain = try chainParameter(context)
        let input = try JSONBody.decode(ExtendRequest.self, from: try await body(request))
        return JSONBody.response(value: try await extendRenewal(input, chain: chain, app: app, actor: principal.actor))
    }

    /// Asks Apple to extend `chain`'s renewal date, audits it under `actor` and schedules an
    /// immediate refresh of the chain.
    package func extendRenewal(_ input: ExtendRequest, chain: String, app: AppRuntime, actor: String) async throws -> ExtendResponse {
        let reason = try Self.checkedReason(input.reason)
        guard (1...90).contains(input.extendByDays) else { throw APIError.badRequest("extendByDays must be 1 to 90") }
        let code = input.extendReasonCode ?? 0
        guard (0...3).contains(code) else { throw APIError.badRequest("extendReasonCode must be 0 to 3") }
        let identifier = input.requestIdentifier ?? UUID().uuidString.lowercased()
        guard (1...128).contains(identifier.utf8.count) else { throw APIError.badRequest("requestIdentifier is too long") }
        let client = try appleClient(app)
        let answer = try await callApple {
            try await client.extendSubscriptionRenewalDate(
                originalTransactionId: chain,
                request: ExtendRenewalDateRequest(
                    extendByDays: input.extendByDays, extendReasonCode: ExtendReasonCode(rawValue: code), requestIdentifier: identifier))
        }
        let now = clock()
        try await store.enqueue(.refresh(appId: app.id, chain: chain, cause: .renewalExtension(identifier), runAt: now))
        let details = [
            "originalTransactionId": chain, "extendByDays": "\(input.extendByDays)",
            "requestIdentifier": identifier, "success": answer.success.map { "\($0)" },
        ].compactMapValues { $0 }
        let customer = try await store.customer(appId: app.id, alias: .originalTransactionId(chain))
        try await audit(.extendRenewal, app: app, actor: actor, customerId: customer, reason: reason, details: details, at: now)
        return ExtendResponse(
            originalTransactionId: answer.originalTransactionId ?? chain, success: answer.success ?? false,
            effectiveDate: answer.effectiveDate, webOrderLineItemId: answer.webOrderLineItemId, requestIdentifier: identifier)
    }

    package struct ExtendResponse: Encodable {
        package var originalTransactionId: String
        package var success: Bool
        package var effectiveDate: Date?
        package var webOrderLineItemId: String?
        package var requestIdentifier: String
    }

    /// `PUT /v1/apps/{appId}/subscriptions/{originalTransactionId}/appAccountToken` (admin).
    package func setAppAccountToken(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let (app, principal) = (try context.caller().app, try context.caller().principal)
        let chain = try chainParameter(context)
        let input = try JSONBody.decode(TokenRequest.self, from: try await body(request))
        let token = try await setAppAccountToken(input, chain: chain, app: app, actor: principal.actor)
        return JSONBody.response(value: ["originalTransactionId": chain, "appAccountToken": token])
    }

    /// Sets `chain`'s app account token at Apple and audits it under `actor`; returns the token
    /// as Apple was given it (lower case).
    package func setAppAccountToken(_ input: TokenRequest, chain: String, app: AppRuntime, actor: String) async throws -> String {
        let reason = try Self.checkedReason(input.reason)
        guard let token = UUID(uuidString: input.appAccountToken) else { throw APIError.badRequest("appAccountToken must be a UUID") }
        let client = try appleClient(app)
        try await callApple {
            try await client.setAppAccountToken(
                originalTransactionId: chain, request: UpdateAppAccountTokenRequest(appAccountToken: token.uuidString.lowercased()))
        }
        let now = clock()
        let customer = try await store.customer(appId: app.id, alias: .originalTransactionId(chain))
        try await audit(
            .setAppAccountToken, app: app, actor: actor, customerId: customer, reason: reason,
            details: ["originalTransactionId": chain, "appAccountToken": token.uuidString.lowercased()], at: now)
        return token.uuidString.lowercased()
    }

    /// `POST /v1/apps/{appId}/notifications/test` (admin): asks Apple to send a test notification.
    package func requestTestNotification(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let app = try context.caller().app
        let client = try appleClient(app)
        let answer = try await callApple { try await client.requestTestNotification() }
        guard let token = answer.testNotificationToken else {
            throw APIError(.badGateway, code: .appStoreError, message: "Apple returned no testNotificationToken")
        }
        return JSONBody.response(status: .accepted, value: ["testNotificationToken": token])
    }

    /// `GET /v1/apps/{appId}/notifications/test/{token}` (admin): Apple's delivery attempts of
    /// a test notification, and whether it reached this server's inbox.
    package func testNotificationStatus(_ request: Request, _ context: APIRequestContext) async throws -> Response {
        let app = try context.caller().app
        let token = try context.pathParameter("token")
        guard (1...256).contains(token.utf8.count) else { throw APIError.badRequest("the token is too long") }
        let client = try appleClient(app)
        let answer = try await callApple { try await client.getTestNotificationStatus(testNotificationToken: token) }
        let now = clock()
        var uuid: String?
        if let signed = answer.signedPayload,
            case .valid(let notification) = await app.verify(signedOnly: true, { await $0.verifyAndDecodeNotification(signed, now: now) })
        {
            uuid = notification.notificationUUID
        }
        var inboxId: Int64?
        var inboxState: String?
        if let uuid {
            let rows = try await store.notifications(appId: app.id, filter: NotificationFilter(notificationType: "TEST", limit: 200))
            if let row = rows.first(where: { $0.metadata?.notificationUUID?.lowercased() == uuid.lowercased() }) {
                inboxId = row.id
                inboxState = row.state.rawValue
            }
        }
        return JSONBody.response(
            value: TestNotificationStatus(
                testNotificationToken: token, notificationUUID: uuid,
                sendAttempts: (answer.sendAttempts ?? []).map { .init(attemptDate: $0.attemptDate, result: $0.sendAttemptResult?.rawValue) },
                received: inboxId != nil, inboxId: inboxId, inboxState: inboxState))
    }

    package struct TestNotificationStatus: Encodable {
        package struct Attempt: Encodable {
            package var attemptDate: Date?
            package var result: String?
        }
        package var testNotificationToken: String
        package var notificationUUID: String?
        package var sendAttempts: [Attempt]
        package var received: Bool
        package var inboxId: Int64?
        package var inboxState: String?
    }
}
