import AppStoreModels
import Foundation
import Testing

/// Retention Messaging bodies decode as Apple's tests expect and responses encode compactly.
@Suite struct RetentionMessagingModelTests {
    @Test func listsAndConfigurationResponsesDecode() throws {
        let images = try ModelFixtures.decode(GetImageListResponse.self, from: "getImageListResponse")
        #expect(
            images.imageIdentifiers == [
                GetImageListResponseItem(
                    imageIdentifier: "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890", imageState: .approved, imageSize: .fullSize
                )
            ])
        let messages = try ModelFixtures.decode(GetMessageListResponse.self, from: "getMessageListResponse")
        #expect(
            messages.messageIdentifiers == [
                GetMessageListResponseItem(
                    messageIdentifier: "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890", messageState: .approved)
            ])
        #expect(
            try ModelFixtures.decode(DefaultConfigurationResponse.self, from: "getDefaultMessageResponse")
                .messageIdentifier
                == "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890")
        #expect(
            try ModelFixtures.decode(RealtimeUrlResponse.self, from: "getRealtimeUrlResponse").realtimeURL
                == "https://example.com/realtime")
    }

    @Test func performanceTestResponsesDecode() throws {
        let config = PerformanceTestConfig(
            maxConcurrentRequests: 10, totalRequests: 100, totalDuration: 60000, responseTimeThreshold: 500,
            successRateThreshold: 95)
        let started = try ModelFixtures.decode(PerformanceTestResponse.self, from: "performanceTestResponse")
        #expect(started == PerformanceTestResponse(config: config, requestId: "c4b87a1d-2e3f-4a5b-9c6d-7e8f9a0b1c2d"))

        let result = try ModelFixtures.decode(PerformanceTestResultResponse.self, from: "performanceTestResultResponse")
        #expect(result.config == config)
        #expect(result.target == "https://example.com/retention")
        #expect(result.result == .pass)
        #expect(result.successRate == 98)
        #expect(result.numPending == 0)
        #expect(
            result.responseTimes == PerformanceTestResponseTimes(average: 120, p50: 100, p90: 200, p95: 250, p99: 400))
        #expect(result.failures == [SendAttemptResult.timedOut.rawValue: 1, SendAttemptResult.noResponse.rawValue: 1])
    }

    @Test func realtimeResponseEncodesOnlyTheChosenMessage() throws {
        let response = RealtimeResponseBody(
            promotionalOffer: PromotionalOffer(
                messageIdentifier: "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890",
                promotionalOfferSignatureV2: "header.payload.signature"))
        let tree = try #require(try ModelFixtures.tree(try JSONEncoder().encode(response)) as? [String: Any])
        #expect(
            ModelFixtures.difference(
                tree,
                [
                    "promotionalOffer": [
                        "messageIdentifier": "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890",
                        "promotionalOfferSignatureV2": "header.payload.signature",
                    ]
                ]) == nil)
    }

    @Test func uploadMessageRequestEncodesApplesSpellings() throws {
        let request = UploadMessageRequestBody(
            header: "Stay", body: "Half price for three months",
            image: UploadMessageImage(imageIdentifier: "a1b2c3d4-e5f6-7890-a1b2-c3d4e5f67890", altText: "A bird"),
            headerPosition: .aboveImage)
        let tree = try #require(try ModelFixtures.tree(try JSONEncoder().encode(request)) as? [String: Any])
        #expect(tree["headerPosition"] as? String == "ABOVE_IMAGE")
        #expect(tree["bulletPoints"] == nil)
    }
}
