import AppStoreModels
import Foundation

extension AppStoreServerAPIClient {
    public func getTransactionInfo(transactionId: String) async throws -> TransactionInfoResponse {
        try await send(
            APICall(endpoint: .getTransactionInfo, path: "/inApps/v1/transactions/\(APICall.segment(transactionId))"),
            as: TransactionInfoResponse.self)
    }

    public func getTransactionHistory(
        transactionId: String, revision: String?, filter: TransactionHistoryRequest, version: GetTransactionHistoryVersion
    ) async throws -> HistoryResponse {
        let path = "/inApps/\(APICall.segment(version.rawValue))/history/\(APICall.segment(transactionId))"
        return try await send(
            APICall(endpoint: .getTransactionHistory, path: path, query: filter.queryItems(revision: revision)),
            as: HistoryResponse.self)
    }

    public func getAppTransactionInfo(transactionId: String) async throws -> AppTransactionInfoResponse {
        try await send(
            APICall(
                endpoint: .getAppTransactionInfo,
                path: "/inApps/v1/transactions/appTransactions/\(APICall.segment(transactionId))"),
            as: AppTransactionInfoResponse.self)
    }

    public func finishTransaction(transactionId: String) async throws {
        try await send(
            APICall(endpoint: .finishTransaction, path: "/inApps/v1/transactions/\(APICall.segment(transactionId))/finish"))
    }

    public func lookUpOrderId(orderId: String) async throws -> OrderLookupResponse {
        try await send(
            APICall(endpoint: .lookUpOrderId, path: "/inApps/v1/lookup/\(APICall.segment(orderId))"),
            as: OrderLookupResponse.self)
    }

    public func getRefundHistory(transactionId: String, revision: String?) async throws -> RefundHistoryResponse {
        let query = revision.map { [URLQueryItem(name: "revision", value: $0)] } ?? []
        return try await send(
            APICall(endpoint: .getRefundHistory, path: "/inApps/v2/refund/lookup/\(APICall.segment(transactionId))", query: query),
            as: RefundHistoryResponse.self)
    }

    public func setAppAccountToken(originalTransactionId: String, request: UpdateAppAccountTokenRequest) async throws {
        try await send(
            .json(
                .setAppAccountToken, "/inApps/v1/transactions/\(APICall.segment(originalTransactionId))/appAccountToken",
                body: request))
    }

    public func sendConsumptionInformation(transactionId: String, request: ConsumptionRequest) async throws {
        try await send(
            .json(
                .sendConsumptionInformation, "/inApps/v2/transactions/consumption/\(APICall.segment(transactionId))", body: request))
    }

    public func sendConsumptionData(transactionId: String, request: ConsumptionRequestV1) async throws {
        try await send(
            .json(
                .sendConsumptionData, "/inApps/v1/transactions/consumption/\(APICall.segment(transactionId))", body: request))
    }
}
