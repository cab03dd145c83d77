import AppStoreModels
import AppStoreServerAPI

/// How a failed Retention Messaging call is reported: Apple's refusals with the error code's
/// name, number and Apple's message (exit 1); no answer or an unreadable one (exit 3).
enum MessagingFailure {
    static let refusedExitCode: Int32 = 1
    static let unreachableExitCode: Int32 = 3

    static func failure(_ error: AppStoreServerAPIError) -> CLIFailure {
        guard error.code == .apiError else {
            return CLIFailure(exitCode: unreachableExitCode, message: "Apple could not be reached: \(error.message)")
        }
        let status = error.httpStatus.map { "HTTP \($0)" } ?? "no status"
        guard let code = error.apiErrorCode else {
            return CLIFailure(exitCode: refusedExitCode, message: "Apple refused the request (\(status)): \(error.message)")
        }
        let name = names[code.rawValue] ?? "errorCode"
        return CLIFailure(exitCode: refusedExitCode, message: "Apple refused the request: \(name) (\(code.rawValue), \(status)): \(error.message)")
    }

    /// The names Apple gives the codes these commands may meet.
    static let names: [Int64: String] = [
        APIErrorCode.generalBadRequest.rawValue: "generalBadRequest",
        APIErrorCode.invalidOriginalTransactionId.rawValue: "invalidOriginalTransactionId",
        APIErrorCode.invalidProductId.rawValue: "invalidProductId",
        APIErrorCode.invalidImage.rawValue: "invalidImage",
        APIErrorCode.headerTooLong.rawValue: "headerTooLong",
        APIErrorCode.bodyTooLong.rawValue: "bodyTooLong",
        APIErrorCode.invalidLocale.rawValue: "invalidLocale",
        APIErrorCode.altTextTooLong.rawValue: "altTextTooLong",
        APIErrorCode.invalidPerformanceTestRequest.rawValue: "invalidPerformanceTestRequest",
        APIErrorCode.invalidRequestId.rawValue: "invalidRequestId",
        APIErrorCode.existingPerformanceTestRun.rawValue: "existingPerformanceTestRun",
        APIErrorCode.badRequestRealtimeUrl.rawValue: "badRequestRealtimeUrl",
        APIErrorCode.badRequestImageSize.rawValue: "badRequestImageSize",
        APIErrorCode.badRequestTooManyBulletPoints.rawValue: "badRequestTooManyBulletPoints",
        APIErrorCode.badRequestBulletPointTextTooLong.rawValue: "badRequestBulletPointTextTooLong",
        APIErrorCode.badRequestAboveImageRequiresAnImage.rawValue: "badRequestAboveImageRequiresAnImage",
        APIErrorCode.maximumNumberOfImagesReached.rawValue: "maximumNumberOfImagesReached",
        APIErrorCode.maximumNumberOfMessagesReached.rawValue: "maximumNumberOfMessagesReached",
        APIErrorCode.messageNotApproved.rawValue: "messageNotApproved",
        APIErrorCode.imageNotApproved.rawValue: "imageNotApproved",
        APIErrorCode.imageInUse.rawValue: "imageInUse",
        APIErrorCode.forbiddenNoPassingTest.rawValue: "forbiddenNoPassingTest",
        APIErrorCode.appNotFound.rawValue: "appNotFound",
        APIErrorCode.originalTransactionIdNotFound.rawValue: "originalTransactionIdNotFound",
        APIErrorCode.imageNotFound.rawValue: "imageNotFound",
        APIErrorCode.messageNotFound.rawValue: "messageNotFound",
        APIErrorCode.performanceTestRunNotFound.rawValue: "performanceTestRunNotFound",
        APIErrorCode.defaultMessageNotFound.rawValue: "defaultMessageNotFound",
        APIErrorCode.realtimeUrlNotFound.rawValue: "realtimeUrlNotFound",
        APIErrorCode.imageAlreadyExists.rawValue: "imageAlreadyExists",
        APIErrorCode.messageAlreadyExists.rawValue: "messageAlreadyExists",
        APIErrorCode.rateLimitExceeded.rawValue: "rateLimitExceeded",
        APIErrorCode.generalInternal.rawValue: "generalInternal",
        APIErrorCode.generalInternalRetryable.rawValue: "generalInternalRetryable",
    ]
}
