import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperStore

extension StorekeeperAPI {
    package struct AppAccountTokenResponse: ResponseEncodable {
        package var customerId: String
        /// The token to pass to StoreKit with every purchase of the customer (lower case).
        package var appAccountToken: String
        /// The tokens the customer held before a rotation: they link nothing from now on.
        package var revoked: [String]?
    }

    package struct RotationRequest: Decodable {
        package var reason: String
    }

    /// `POST /v1/apps/{appId}/customers/{customerId}/appAccountToken` (app key, or that
    /// customer's token): the customer's app account token, issued (a random UUID) the first
    /// time it is asked for. The app passes it to StoreKit with every purchase; Apple reports
    /// it with the transactions, and the server links them to the customer it was issued to.
    package func appAccountToken(_ request: Request, _ context: APIRequestContext) async throws -> AppAccountTokenResponse {
        let (app, customer) = (try context.caller().app, try context.customerId())
        let token = try await issuedAppAccountToken(customerId: customer, app: app, now: clock())
        return AppAccountTokenResponse(customerId: customer, appAccountToken: token)
    }

    /// `POST /v1/apps/{appId}/customers/{customerId}/appAccountToken/rotate` (admin): revokes
    /// every token the customer holds and issues a new one; audited. Chains already linked stay
    /// the customer's; a purchase made with a revoked token is linked when the app posts it.
    package func rotateAppAccountToken(_ request: Request, _ context: APIRequestContext) async throws -> AppAccountTokenResponse {
        let (app, principal) = (try context.caller().app, try context.caller().principal)
        let customer = try context.customerId()
        let reason = try Self.checkedReason(try JSONBody.decode(RotationRequest.self, from: try await body(request)).reason)
        let now = clock()
        let token = UUID().uuidString.lowercased()
        let revoked = try await store.rotateAppAccountToken(appId: app.id, customerId: customer, proposed: token, at: now)
        try await audit(
            .rotateAppAccountToken, app: app, actor: principal.actor, customerId: customer, reason: reason,
            details: ["appAccountToken": token, "revoked": revoked.joined(separator: ",")], at: now)
        return AppAccountTokenResponse(customerId: customer, appAccountToken: token, revoked: revoked)
    }

    /// The customer's current app account token, issued now when it has none.
    package func issuedAppAccountToken(customerId: String, app: AppRuntime, now: Date) async throws -> String {
        guard (1...256).contains(customerId.utf8.count) else { throw APIError.badRequest("customerId must be 1 to 256 characters") }
        do {
            return try await store.issueAppAccountToken(appId: app.id, customerId: customerId, proposed: UUID().uuidString.lowercased(), at: now)
        } catch let error as StoreError where error.code == .aliasConflict {
            // A random UUID another customer holds: never in practice; the caller may ask again.
            throw APIError(.conflict, code: .appAccountTokenNotIssued, message: "no app account token could be issued: ask again")
        }
    }

    /// The one check of an app account token a request names against the customer it names:
    /// 409 `refusal` when the token was issued to another customer, and also when it was never
    /// issued and `mustBeIssued` (a token of Apple's signed transaction need not have been: the
    /// app may have made it).
    package func checkAppAccountToken(
        _ token: String, isCustomers customer: String, app: AppRuntime, mustBeIssued: Bool, refusal: APIError
    ) async throws {
        switch try await store.customer(appId: app.id, alias: .appAccountToken(token)) {
        case let owner? where CustomerId.same(owner, customer): return
        case .some: throw refusal
        case nil: if mustBeIssued { throw refusal }
        }
    }

    package static let tokenNotIssued = APIError(
        .conflict, code: .appAccountTokenNotIssued,
        message: "the app account token was not issued to this customer: ask POST …/customers/{customerId}/appAccountToken for theirs")
}
