import AppStoreModels
import Foundation

extension AppStoreServerAPIClient {
    /// Sends `call` and decodes a JSON response body.
    func send<Response: Decodable>(_ call: APICall, as type: Response.Type) async throws -> Response {
        let response = try await perform(call)
        do {
            return try JSONDecoder().decode(Response.self, from: response.body)
        } catch {
            throw AppStoreServerAPIError(
                .malformedResponse, "\(call.endpoint.name) returned an unreadable body: \(error)", httpStatus: response.status)
        }
    }

    /// Sends `call` whose success has no body.
    func send(_ call: APICall) async throws {
        _ = try await perform(call)
    }

    /// The send-and-retry loop: budget slot, token, transport, classification, wait.
    func perform(_ call: APICall) async throws -> HTTPResponseValue {
        let policy = configuration.retryPolicy
        var attempt = 0
        while true {
            attempt += 1
            let slot = await rateBudget.reserve(
                call.endpoint, bundleId: configuration.bundleId, environment: configuration.environment, now: clock.now())
            try await clock.sleep(until: slot)
            let request = try await makeRequest(call)

            var failure: AppStoreServerAPIError
            do {
                let response = try await transport.send(request)
                if response.isSuccess { return response }
                failure = Self.error(for: response, endpoint: call.endpoint, now: clock.now())
            } catch let error as CancellationError {
                throw error
            } catch {
                failure = AppStoreServerAPIError(.transport, "\(call.endpoint.name): \(error)")
            }
            failure.attempts = attempt

            let now = clock.now()
            let backoff = policy.backoff(afterAttempt: attempt, random: random())
            if failure.httpStatus == 429 {
                await rateBudget.pause(
                    call.endpoint, bundleId: configuration.bundleId, environment: configuration.environment,
                    until: failure.retryAfter ?? now.addingTimeInterval(backoff.seconds))
            }
            guard failure.isRetryable, attempt < policy.maximumAttempts else { throw failure }
            if let retryAfter = failure.retryAfter {
                if retryAfter.timeIntervalSince(now) > policy.maximumRetryAfter.seconds {
                    failure.code = .retryAfterTooLong
                    failure.message = "\(call.endpoint.name): Apple asked to wait until \(retryAfter), beyond the retry policy"
                    throw failure
                }
                try await clock.sleep(until: max(retryAfter, now))
            } else {
                try await clock.sleep(until: now.addingTimeInterval(backoff.seconds))
            }
        }
    }

    /// Builds the HTTP request of `call` with a current token.
    func makeRequest(_ call: APICall) async throws -> HTTPRequestValue {
        guard var components = URLComponents(url: configuration.baseURL, resolvingAgainstBaseURL: false) else {
            throw AppStoreServerAPIError(.configuration, "the base URL \(configuration.baseURL) is not a URL")
        }
        let basePath = components.path.hasSuffix("/") ? String(components.path.dropLast()) : components.path
        components.percentEncodedPath = basePath + call.path
        if !call.query.isEmpty {
            components.percentEncodedQueryItems = call.query.map {
                URLQueryItem(name: $0.name, value: $0.value.map(Self.escapeQueryValue))
            }
        }
        guard let url = components.url else {
            throw AppStoreServerAPIError(.invalidRequest, "cannot form a URL for \(call.endpoint.name)")
        }
        let token = try await tokens.token(now: clock.now())
        var headers: [(name: String, value: String)] = [
            ("User-Agent", configuration.userAgent),
            ("Authorization", "Bearer \(token)"),
            ("Accept", "application/json"),
        ]
        if call.body != nil { headers.append(("Content-Type", call.contentType)) }
        return HTTPRequestValue(method: call.endpoint.method, url: url, headers: headers, body: call.body)
    }

    /// Query values escaped strictly (`+`, `&`, `=` and `/` included), so tokens survive intact.
    private static func escapeQueryValue(_ value: String) -> String {
        var allowed = CharacterSet.alphanumerics
        allowed.insert(charactersIn: "-._~")
        return value.addingPercentEncoding(withAllowedCharacters: allowed) ?? value
    }

    /// The error for a non-2xx response: Apple's `errorCode` and message when the body has them.
    static func error(for response: HTTPResponseValue, endpoint: APIEndpoint, now: Date) -> AppStoreServerAPIError {
        let payload = try? JSONDecoder().decode(ErrorPayload.self, from: response.body)
        let retryAfter = response.header("Retry-After").flatMap { RetryAfter.date(from: $0, now: now) }
        let message = payload?.errorMessage ?? "HTTP \(response.status)"
        return AppStoreServerAPIError(
            .apiError, "\(endpoint.name): \(message)", httpStatus: response.status,
            apiErrorCode: payload?.errorCode, retryAfter: retryAfter)
    }
}
