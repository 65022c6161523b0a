import Foundation

protocol DownloadDelegate: AnyObject {
    func downloader(_ d: Downloader, didFinish url: URL)
    func downloader(_ d: Downloader, didFail error: Error)
}

enum DownloadError: Error {
    case badStatus(Int)
    case empty
}

struct DownloadTask {
    let url: URL
    var retries: Int = 0
}

final class Downloader {
    weak var delegate: DownloadDelegate?
    private let session: URLSession

    init(session: URLSession = .shared) {
        self.session = session
    }

    func fetch(_ task: DownloadTask) async throws -> Data {
        let (data, response) = try await session.data(from: task.url)
        guard let http = response as? HTTPURLResponse, http.statusCode == 200 else {
            throw DownloadError.badStatus((response as? HTTPURLResponse)?.statusCode ?? -1)
        }
        if data.isEmpty {
            throw DownloadError.empty
        }
        delegate?.downloader(self, didFinish: task.url)
        return data
    }
}

extension Downloader: CustomStringConvertible {
    var description: String { "Downloader(\(session))" }
}

typealias Completion = (Result<Data, Error>) -> Void

func makeDefaultDownloader() -> Downloader {
    Downloader()
}
