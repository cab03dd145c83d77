import Foundation

/// The app account token the server issued to the customer, kept in the state directory beside
/// the customer state, so purchases made offline carry it and the server is asked once per
/// customer. A token kept for another app or customer is not used.
struct AppAccountTokenFile: Sendable {
    let url: URL

    struct Kept: Codable, Sendable, Hashable {
        var appId: String
        var customerId: String
        var appAccountToken: String
    }

    /// The kept token of the customer, if any.
    func load(appId: String, customerId: String) -> UUID? {
        guard let data = try? Data(contentsOf: url), let kept = try? JSONDecoder().decode(Kept.self, from: data),
            kept.appId == appId, kept.customerId == customerId
        else { return nil }
        return UUID(uuidString: kept.appAccountToken)
    }

    func save(_ token: UUID, appId: String, customerId: String) throws {
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let kept = Kept(appId: appId, customerId: customerId, appAccountToken: token.uuidString.lowercased())
        try encoder.encode(kept).write(to: url, options: .atomic)
    }

    /// Forgets the kept token (the server no longer counts it as the customer's).
    func clear() {
        try? FileManager.default.removeItem(at: url)
    }
}
