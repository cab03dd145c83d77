import AppStoreModels
import Foundation

extension AppStoreServerAPIClient {
    public func getAllSubscriptionStatuses(transactionId: String, statuses: [Status]?) async throws -> StatusResponse {
        let query = (statuses ?? []).map { URLQueryItem(name: "status", value: String($0.rawValue)) }
        return try await send(
            APICall(endpoint: .getAllSubscriptionStatuses, path: "/inApps/v1/subscriptions/\(APICall.segment(transactionId))", query: query),
            as: StatusResponse.self)
    }

    public func extendSubscriptionRenewalDate(
        originalTransactionId: String, request: ExtendRenewalDateRequest
    ) async throws -> ExtendRenewalDateResponse {
        try await send(
            .json(.extendSubscriptionRenewalDate, "/inApps/v1/subscriptions/extend/\(APICall.segment(originalTransactionId))", body: request),
            as: ExtendRenewalDateResponse.self)
    }

    public func extendRenewalDateForAllActiveSubscribers(
        request: MassExtendRenewalDateRequest
    ) async throws -> MassExtendRenewalDateResponse {
        try await send(
            .json(.extendRenewalDateForAllActiveSubscribers, "/inApps/v1/subscriptions/extend/mass", body: request),
            as: MassExtendRenewalDateResponse.self)
    }

    public func getStatusOfSubscriptionRenewalDateExtensions(
        productId: String, requestIdentifier: String
    ) async throws -> MassExtendRenewalDateStatusResponse {
        let path = "/inApps/v1/subscriptions/extend/mass/\(APICall.segment(productId))/\(APICall.segment(requestIdentifier))"
        return try await send(
            APICall(endpoint: .getStatusOfSubscriptionRenewalDateExtensions, path: path),
            as: MassExtendRenewalDateStatusResponse.self)
    }
}
