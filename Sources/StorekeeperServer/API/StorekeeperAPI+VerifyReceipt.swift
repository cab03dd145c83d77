import AppStoreModels
import AppStoreVerification
import Foundation
import Hummingbird
import StorekeeperStore

extension StorekeeperAPI {
    /// `POST /verifyReceipt`: a drop-in for Apple's deprecated endpoint, answered by local
    /// validation. As Apple does, it answers HTTP 200 with a `status` for every request it can
    /// read (21000 for an unreadable request, 21002 malformed, 21003 not authentic, 21004
    /// wrong password). The receipt names its app by bundle id.
    func verifyReceipt(_ request: Request) async throws -> Response {
        let buffer = try await body(request)
        let now = clock()
        guard let input = try? JSONDecoder().decode(VerifyReceiptRequest.self, from: Data(buffer: buffer)) else {
            return Self.legacy(VerifyReceiptResponse(status: .unreadableRequest))
        }
        guard let bundleId = AppReceipt.decodeUnverified(Data(input.receiptData.utf8))?.bundleId else {
            return Self.legacy(VerifyReceiptResponse(status: .malformedReceipt))
        }
        guard let app = apps.apps.values.first(where: { $0.configuration.bundleId == bundleId }) else {
            return Self.legacy(VerifyReceiptResponse(status: .notAuthenticated))
        }
        if let secret = app.configuration.sharedSecret, let password = input.password, !ConstantTime.equals(password, secret) {
            return Self.legacy(VerifyReceiptResponse(status: .sharedSecretMismatch))
        }
        let result = app.receiptVerifier.verify(base64Encoded: input.receiptData, now: now)
        return Self.legacy(result.verifyReceiptResponse(now: now))
    }

    static func legacy(_ response: VerifyReceiptResponse) -> Response {
        let data = (try? JSONEncoder().encode(response)) ?? Data("{\"status\":21005}".utf8)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(bytes: data)))
    }
}
