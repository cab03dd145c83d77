import AppStoreServerAPI
import Foundation

/// The `Date` header of the last answer each host sent, for comparing the local clock with
/// Apple's and the server's: API tokens and signed dates break when they drift apart.
actor AnswerDates {
    private var dates: [String: Date] = [:]

    /// The date the host of `url` last answered with, if any.
    func date(of url: URL) -> Date? { dates[Self.key(url)] }

    func record(_ date: Date, for url: URL) { dates[Self.key(url)] = date }

    private static func key(_ url: URL) -> String { "\(url.host ?? ""):\(url.port ?? 0)" }

    /// Reads an HTTP `Date` header (IMF-fixdate, RFC 9110 §5.6.7).
    static func parse(_ header: String) -> Date? {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        return formatter.date(from: header)
    }
}

/// An ``HTTPTransport`` that notes each answer's `Date` header in ``AnswerDates`` and passes the
/// answer on unchanged.
struct DateRecordingTransport: HTTPTransport {
    let base: any HTTPTransport
    let dates: AnswerDates

    func send(_ request: HTTPRequestValue) async throws -> HTTPResponseValue {
        let response = try await base.send(request)
        if let header = response.header("Date"), let date = AnswerDates.parse(header) {
            await dates.record(date, for: request.url)
        }
        return response
    }
}
