import AppStoreModels
import Foundation

extension AppStoreServerAPIClient {
    public func uploadImage(imageIdentifier: UUID, image: Data, imageSize: ImageSize?) async throws {
        let query = imageSize.map { [URLQueryItem(name: "imageSize", value: $0.rawValue)] } ?? []
        try await send(
            APICall(
                endpoint: .uploadImage, path: "/inApps/v1/messaging/image/\(Self.identifier(imageIdentifier))",
                query: query, body: image, contentType: "image/png"))
    }

    public func deleteImage(imageIdentifier: UUID) async throws {
        try await send(APICall(endpoint: .deleteImage, path: "/inApps/v1/messaging/image/\(Self.identifier(imageIdentifier))"))
    }

    public func getImageList() async throws -> GetImageListResponse {
        try await send(APICall(endpoint: .getImageList, path: "/inApps/v1/messaging/image/list"), as: GetImageListResponse.self)
    }

    public func uploadMessage(messageIdentifier: UUID, body: UploadMessageRequestBody) async throws {
        try await send(.json(.uploadMessage, "/inApps/v1/messaging/message/\(Self.identifier(messageIdentifier))", body: body))
    }

    public func deleteMessage(messageIdentifier: UUID) async throws {
        try await send(APICall(endpoint: .deleteMessage, path: "/inApps/v1/messaging/message/\(Self.identifier(messageIdentifier))"))
    }

    public func getMessageList() async throws -> GetMessageListResponse {
        try await send(APICall(endpoint: .getMessageList, path: "/inApps/v1/messaging/message/list"), as: GetMessageListResponse.self)
    }

    public func configureDefaultMessage(productId: String, locale: String, request: DefaultConfigurationRequest) async throws {
        try await send(.json(.configureDefaultMessage, Self.defaultMessagePath(productId, locale), body: request))
    }

    public func deleteDefaultMessage(productId: String, locale: String) async throws {
        try await send(APICall(endpoint: .deleteDefaultMessage, path: Self.defaultMessagePath(productId, locale)))
    }

    public func getDefaultMessage(productId: String, locale: String) async throws -> DefaultConfigurationResponse {
        try await send(
            APICall(endpoint: .getDefaultMessage, path: Self.defaultMessagePath(productId, locale)),
            as: DefaultConfigurationResponse.self)
    }

    public func configureRealtimeURL(request: RealtimeUrlRequest) async throws {
        try await send(.json(.configureRealtimeURL, "/inApps/v1/messaging/realtime/url", body: request))
    }

    public func deleteRealtimeURL() async throws {
        try await send(APICall(endpoint: .deleteRealtimeURL, path: "/inApps/v1/messaging/realtime/url"))
    }

    public func getRealtimeURL() async throws -> RealtimeUrlResponse {
        try await send(APICall(endpoint: .getRealtimeURL, path: "/inApps/v1/messaging/realtime/url"), as: RealtimeUrlResponse.self)
    }

    public func initiatePerformanceTest(request: PerformanceTestRequest) async throws -> PerformanceTestResponse {
        try await send(
            .json(.initiatePerformanceTest, "/inApps/v1/messaging/performanceTest", body: request),
            as: PerformanceTestResponse.self)
    }

    public func getPerformanceTestResults(requestId: String) async throws -> PerformanceTestResultResponse {
        try await send(
            APICall(endpoint: .getPerformanceTestResults, path: "/inApps/v1/messaging/performanceTest/result/\(APICall.segment(requestId))"),
            as: PerformanceTestResultResponse.self)
    }

    /// Apple's library sends identifiers in lower case.
    private static func identifier(_ uuid: UUID) -> String { uuid.uuidString.lowercased() }

    private static func defaultMessagePath(_ productId: String, _ locale: String) -> String {
        "/inApps/v1/messaging/default/\(APICall.segment(productId))/\(APICall.segment(locale))"
    }
}
