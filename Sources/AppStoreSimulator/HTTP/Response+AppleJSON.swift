import Foundation
import Hummingbird

extension Response {
    /// A JSON response typed exactly `application/json`, as Apple sends (Apple's Python client
    /// reads an error body only under that exact content type).
    static func appleJSON(_ value: some Encodable, status: HTTPResponse.Status = .ok, headers: HTTPFields = HTTPFields()) -> Response {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        var fields = headers
        fields[.contentType] = "application/json"
        guard let body = try? encoder.encode(value) else {
            return Response(
                status: .internalServerError, headers: fields,
                body: ResponseBody(byteBuffer: ByteBuffer(string: #"{"errorCode":5000000,"errorMessage":"An unknown error occurred."}"#)))
        }
        return Response(status: status, headers: fields, body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }

    /// An empty response (`202 Accepted` for consumption information, `200` for app account tokens).
    static func empty(_ status: HTTPResponse.Status) -> Response {
        Response(status: status)
    }
}
