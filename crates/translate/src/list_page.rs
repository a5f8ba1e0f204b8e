//! Which results of a Terraform list resource one engine `List` call returns. Terraform's list
//! resources cannot resume, so a page after the first lists again from the start and skips what
//! earlier pages returned: the continuation token is that count.

/// A continuation token that no List answer gave.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid continuation token {}: give back the one a List answer returned",
    tfp_echo::quoted(.0)
)]
pub struct ContinuationTokenError(pub String);

/// One page: skip what earlier pages returned, then at most `take`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ListPage {
    pub skip: u64,
    pub take: Option<u64>,
    /// Whether `take` is the page size, so that more results mean another page.
    pub paged: bool,
}

impl ListPage {
    /// The page of a request with `limit` and `page_size` (below 1: none) that gave back
    /// `continuation_token` (empty on the first page). The limit caps the results of the whole
    /// listing, every page together (the engine sends the same limit with each page: pulumi
    /// v3.255.0 `pkg/resource/plugin/provider.go` `ListRequest`), and the page size each page.
    pub fn new(
        limit: i64,
        page_size: i64,
        continuation_token: &str,
    ) -> Result<ListPage, ContinuationTokenError> {
        let skip = match continuation_token {
            "" => 0,
            token => token
                .parse()
                .map_err(|_| ContinuationTokenError(token.to_owned()))?,
        };
        let positive = |n: i64| u64::try_from(n).ok().filter(|n| *n > 0);
        let (limit, page_size) = (positive(limit), positive(page_size));
        let left = limit.map(|limit| limit.saturating_sub(skip));
        let take = match (left, page_size) {
            (Some(l), Some(p)) => Some(l.min(p)),
            (l, p) => l.or(p),
        };
        // Another page may follow a full one, unless it reaches the limit.
        let paged = page_size.is_some()
            && take == page_size
            && left.is_none_or(|left| take.is_some_and(|take| left > take));
        Ok(ListPage { skip, take, paged })
    }

    /// The token of the page after this one, which returned `sent` results: the count to skip,
    /// which [`ListPage::new`] reads back.
    pub fn next_token(&self, sent: u64) -> String {
        (self.skip + sent).to_string()
    }

    /// The provider's limit: enough for the skipped results, this page, and, when paged, one
    /// more to tell whether another page follows. No limit is `i64::MAX`.
    pub fn provider_limit(&self) -> i64 {
        match self.take {
            None => i64::MAX,
            Some(take) => {
                let wanted = self
                    .skip
                    .saturating_add(take)
                    .saturating_add(u64::from(self.paged));
                i64::try_from(wanted).unwrap_or(i64::MAX)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(limit: i64, page_size: i64, token: &str) -> ListPage {
        ListPage::new(limit, page_size, token).expect("a valid request")
    }

    #[test]
    fn pages_skip_what_earlier_pages_returned_and_ask_for_one_more() {
        let all = page(0, 0, "");
        assert_eq!((all.skip, all.take, all.paged), (0, None, false));
        assert_eq!(all.provider_limit(), i64::MAX);
        let limited = page(5, 0, "");
        assert_eq!((limited.take, limited.paged), (Some(5), false));
        assert_eq!(limited.provider_limit(), 5);
        let second = page(0, 10, "10");
        assert_eq!(
            (second.skip, second.take, second.paged),
            (10, Some(10), true)
        );
        assert_eq!(second.provider_limit(), 21);
        // The limit counts every page: the page that reaches it is the last.
        let last = page(15, 10, "10");
        assert_eq!((last.take, last.paged), (Some(5), false));
        assert_eq!(last.provider_limit(), 15);
        let full = page(20, 10, "10");
        assert_eq!((full.take, full.paged), (Some(10), false));
        let more = page(21, 10, "10");
        assert_eq!((more.take, more.paged), (Some(10), true));
        assert_eq!(more.provider_limit(), 21);
        let first = page(3, 10, "");
        assert_eq!((first.take, first.paged), (Some(3), false));
        // A token at or past the limit lists nothing more.
        let past = page(5, 10, "10");
        assert_eq!((past.take, past.paged), (Some(0), false));
        assert_eq!(past.provider_limit(), 10);
        assert_eq!(
            ListPage::new(0, 0, "next")
                .expect_err("not a count")
                .to_string(),
            "invalid continuation token \"next\": give back the one a List answer returned"
        );
    }
}
