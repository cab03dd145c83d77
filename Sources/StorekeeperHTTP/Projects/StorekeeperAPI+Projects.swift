import Foundation
import Hummingbird
import StorekeeperApps
import StorekeeperStore
import SubscriptionEngine

/// An entitlement another app of the project grants the customer.
package struct SharedEntitlement: Encodable, Sendable, Hashable {
    package var appId: String
    package var customerId: String
    package var entitlement: Entitlement
}

extension StorekeeperAPI {
    /// What the other apps of `app`'s project grant the customer now: their customer with the
    /// same id. App account tokens are issued per app and never link customers across apps (a
    /// token one app issued means nothing in another).
    package func sharedEntitlements(app: AppRuntime, customerId: String, now: Date) async throws -> [SharedEntitlement] {
        var shared: [SharedEntitlement] = []
        for peer in apps.projectPeers(of: app.id) {
            guard try await store.customerExists(appId: peer.id, customerId: customerId) else { continue }
            let history = PurchaseHistory(ledger: try await store.ledger(appId: peer.id, customerId: customerId))
            let state = CustomerState(history: history, catalog: peer.catalog, at: now)
            shared += state.entitlements.map { SharedEntitlement(appId: peer.id, customerId: customerId, entitlement: $0) }
        }
        return shared
    }

    package struct ProjectCustomerResponse: ResponseEncodable {
        package struct AppPart: Encodable {
            package var appId: String
            package var customerId: String
            package var entitlements: [Entitlement]
            package var subscriptions: [SubscriptionState]
        }
        package var projectId: String
        package var customerId: String
        package var instant: Date
        /// Every entitlement the customer has in any app of the project.
        package var entitlements: [SharedEntitlement]
        package var apps: [AppPart]
    }

    /// `GET /v1/projects/{projectId}/customers/{customerId}` (a key of any app of the project, or
    /// that customer's token): the union over the project's apps.
    package func projectCustomer(_ request: Request, _ context: APIRequestContext) async throws -> ProjectCustomerResponse {
        guard let credential = APIAuthenticator.bearerCredential(request) else { throw APIError.unauthorized }
        let projectId = try context.pathParameter("projectId")
        let customer = try context.customerId()
        let now = clock()
        guard let project = apps.projects[projectId] else {
            throw APIError.unauthorized  // an unknown project looks like a wrong key
        }
        let principals = project.apps.compactMap { apps.authenticate(credential, appId: $0, now: now) }
        guard let principal = principals.first, project.apps.contains(principal.appId) else { throw APIError.unauthorized }
        if let tokenCustomer = principal.customerId, !CustomerId.same(tokenCustomer, customer) { throw APIAuthenticator.customerTokenRefused }
        guard let origin = apps.apps[principal.appId] else { throw APIError.notFound }
        var parts: [ProjectCustomerResponse.AppPart] = []
        if try await store.customerExists(appId: origin.id, customerId: customer) {
            let state = CustomerState(
                history: PurchaseHistory(ledger: try await store.ledger(appId: origin.id, customerId: customer)), catalog: origin.catalog, at: now)
            parts.append(.init(appId: origin.id, customerId: customer, entitlements: state.entitlements, subscriptions: state.subscriptions))
        }
        let shared = try await sharedEntitlements(app: origin, customerId: customer, now: now)
        for group in Dictionary(grouping: shared, by: { "\($0.appId)\u{0}\($0.customerId)" }).sorted(by: { $0.key < $1.key }).map(\.value) {
            guard let first = group.first, let peer = apps.apps[first.appId] else { continue }
            let state = CustomerState(
                history: PurchaseHistory(ledger: try await store.ledger(appId: peer.id, customerId: first.customerId)), catalog: peer.catalog, at: now
            )
            parts.append(.init(appId: peer.id, customerId: first.customerId, entitlements: state.entitlements, subscriptions: state.subscriptions))
        }
        guard !parts.isEmpty else { throw APIError.notFound }
        let union = parts.flatMap { part in
            part.entitlements.map { SharedEntitlement(appId: part.appId, customerId: part.customerId, entitlement: $0) }
        }
        return ProjectCustomerResponse(projectId: projectId, customerId: customer, instant: now, entitlements: union, apps: parts)
    }
}
