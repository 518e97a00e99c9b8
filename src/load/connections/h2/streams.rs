//! The session's table of open streams: a fixed number of slots (one per concurrent request the caller allows),
//! found by stream id or by lane with a linear search, each with its flow-control windows, the response so far and
//! the part of the request body still to send. Slots and their body buffers are reused, so a warmed-up table never
//! allocates.

/// One open stream (a request in flight).
#[derive(Debug, Default)]
pub struct Stream {
    /// The stream id; 0 marks a free slot.
    pub id: u32,
    /// The caller's request slot, named in every event about this stream.
    pub lane: usize,
    /// How many more DATA bytes the peer accepts on this stream (negative after the peer shrank its windows).
    pub send_window: i64,
    /// How many more DATA bytes the peer may send on this stream before we give credit back.
    pub receive_window: i64,
    /// DATA bytes received on this stream since credit was last given back.
    pub received_since_update: u32,
    /// The final response status; 0 until the response's HEADERS arrived.
    pub status: u16,
    /// Response body bytes received so far (padding excluded).
    pub body_bytes: u64,
    /// The request body (a copy: the caller's bytes are only lent for the call).
    pub body: Vec<u8>,
    /// How much of `body` has gone out in DATA frames.
    pub body_sent: usize,
    /// We sent END_STREAM (the whole request is out).
    pub request_done: bool,
}

impl Stream {
    pub fn is_open(&self) -> bool {
        self.id != 0
    }

    /// Body bytes still waiting for window.
    pub fn unsent_body(&self) -> &[u8] {
        &self.body[self.body_sent..]
    }
}

/// What is left of a stream once it leaves the table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Closed {
    pub id: u32,
    pub lane: usize,
    pub status: u16,
    pub body_bytes: u64,
    pub request_done: bool,
}

/// The open streams, at most `capacity` at a time.
#[derive(Debug)]
pub struct StreamTable {
    slots: Vec<Stream>,
    open: usize,
}

impl StreamTable {
    pub fn with_capacity(capacity: usize) -> StreamTable {
        StreamTable { slots: (0..capacity).map(|_| Stream::default()).collect(), open: 0 }
    }

    pub fn open_count(&self) -> usize {
        self.open
    }

    pub fn is_full(&self) -> bool {
        self.open == self.slots.len()
    }

    /// Take a free slot for a new stream; its windows start as given, its body empty. None when the table is full.
    pub fn open(&mut self, id: u32, lane: usize, send_window: i64, receive_window: i64) -> Option<usize> {
        let index = self.slots.iter().position(|slot| !slot.is_open())?;
        let slot = &mut self.slots[index];
        slot.id = id;
        slot.lane = lane;
        slot.send_window = send_window;
        slot.receive_window = receive_window;
        slot.received_since_update = 0;
        slot.status = 0;
        slot.body_bytes = 0;
        slot.body.clear();
        slot.body_sent = 0;
        slot.request_done = false;
        self.open += 1;
        Some(index)
    }

    /// The slot of the open stream `id`.
    pub fn index_of_id(&self, id: u32) -> Option<usize> {
        if id == 0 {
            return None;
        }
        self.slots.iter().position(|slot| slot.id == id)
    }

    /// The slot of the open stream serving `lane`.
    pub fn index_of_lane(&self, lane: usize) -> Option<usize> {
        self.slots.iter().position(|slot| slot.is_open() && slot.lane == lane)
    }

    pub fn get_mut(&mut self, index: usize) -> &mut Stream {
        &mut self.slots[index]
    }

    /// Forget the stream in slot `index` (its body buffer stays for the next stream).
    pub fn close(&mut self, index: usize) -> Closed {
        let slot = &mut self.slots[index];
        debug_assert!(slot.is_open());
        let closed = Closed {
            id: slot.id,
            lane: slot.lane,
            status: slot.status,
            body_bytes: slot.body_bytes,
            request_done: slot.request_done,
        };
        slot.id = 0;
        self.open -= 1;
        closed
    }

    /// Every slot, open or free (callers skip free ones with `is_open`); indices stay valid while iterating.
    pub fn slots_mut(&mut self) -> impl Iterator<Item = (usize, &mut Stream)> {
        self.slots.iter_mut().enumerate()
    }

    pub fn len(&self) -> usize {
        self.slots.len()
    }

    #[allow(dead_code)] // len's companion
    pub fn is_empty(&self) -> bool {
        self.slots.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slots_are_reused_and_found_by_id_and_lane() {
        let mut table = StreamTable::with_capacity(2);
        let first = table.open(1, 10, 100, 200).unwrap();
        let second = table.open(3, 11, 100, 200).unwrap();
        assert!(table.is_full());
        assert_eq!(table.open(5, 12, 100, 200), None);
        assert_eq!(table.index_of_id(3), Some(second));
        assert_eq!(table.index_of_lane(10), Some(first));
        let closed = table.close(first);
        assert_eq!(closed, Closed { id: 1, lane: 10, status: 0, body_bytes: 0, request_done: false });
        assert_eq!(table.index_of_lane(10), None, "a closed stream's lane is no longer found");
        assert_eq!(table.index_of_id(1), None);
        assert_eq!(table.open(5, 12, 100, 200), Some(first));
        assert_eq!(table.open_count(), 2);
    }
}
