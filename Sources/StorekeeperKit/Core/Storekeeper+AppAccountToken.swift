import Foundation

extension Storekeeper {
    struct AppAccountTokenAnswer: Decodable {
        var customerId: String
        var appAccountToken: String
    }

    /// The customer's app account token, which every purchase passes to the store so the server
    /// links Apple's transactions to the customer: issued by the server to this customer (a
    /// random UUID, never derived from the ids) and kept on the device beside the customer
    /// state; the server is asked only when none is kept for the customer.
    ///
    /// - Throws: ``StorekeeperError`` when none is kept and the server cannot give one.
    public func appAccountToken() async throws -> UUID {
        if let kept = tokenFile.load(appId: configuration.appId, customerId: customerId) { return kept }
        let customer = customerId
        let answer = try server.decode(AppAccountTokenAnswer.self, try await server.call("POST", ["customers", customer, "appAccountToken"]))
        guard answer.customerId == customer, let token = UUID(uuidString: answer.appAccountToken) else {
            throw StorekeeperError(.invalidAnswer, "the server's app account token is not a UUID issued to \(customer)")
        }
        try? tokenFile.save(token, appId: configuration.appId, customerId: customer)
        return token
    }

    /// Forgets the kept token, so the next purchase asks the server again (the operator rotated it).
    func forgetAppAccountToken() {
        tokenFile.clear()
    }

    static let appAccountTokenFile = "app-account-token.json"
}
