import Foundation
import Hummingbird
import StorekeeperApps

extension StorekeeperAPI {
    package struct CustomerTokenRequest: Decodable {
        /// Seconds until the token expires (60 … 604,800; one hour by default).
        package var expiresIn: Int?
    }

    package struct CustomerTokenResponse: ResponseEncodable {
        package var token: String
        package var customerId: String
        package var expiresAt: Date
    }

    /// `POST /v1/apps/{appId}/customers/{customerId}/tokens` (app or admin key): a customer
    /// token for the app on that customer's device (see ``CustomerToken``).
    package func mintCustomerToken(_ request: Request, _ context: APIRequestContext) async throws -> EditedResponse<CustomerTokenResponse> {
        let customer = try context.customerId()
        let app = try context.caller().app
        let buffer = try await body(request)
        let input = buffer.readableBytes == 0 ? CustomerTokenRequest() : try JSONBody.decode(CustomerTokenRequest.self, from: buffer)
        let lifetime = input.expiresIn ?? 3600
        guard (60...604_800).contains(lifetime) else { throw APIError.badRequest("expiresIn must be 60 to 604800 seconds") }
        guard let key = app.customerTokenKey else {
            throw APIError(.conflict, code: .noTokenKey, message: "the app has no key to sign customer tokens with")
        }
        let expiresAt = Date(timeIntervalSince1970: (clock().timeIntervalSince1970 + Double(lifetime)).rounded(.down))
        let token = CustomerToken(appId: app.id, customerId: customer, expiresAt: expiresAt)
        return EditedResponse(
            status: .created, response: CustomerTokenResponse(token: token.text(key: key), customerId: customer, expiresAt: expiresAt))
    }
}
