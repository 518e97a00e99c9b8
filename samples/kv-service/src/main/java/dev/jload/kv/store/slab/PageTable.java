package dev.jload.kv.store.slab;

/**
 * Page bookkeeping shared by the slab classes: the direct memory itself, the pool of pages no class owns yet, and for
 * each page the entry in each slot and the count of used slots.
 *
 * <p>The per-page arrays of a page are only touched by the class that owns the page, under that class's lock; a page
 * changes owner only through {@link SlabStore#movePage}, which releases the donor's lock before taking the receiver's,
 * so those locks order every access. The free-page pool has its own monitor.
 */
final class PageTable {
    final PageMemory memory;
    private final SlabEntry[][] slotOwners;
    private final int[] usedSlots;
    private final int[] unassigned;
    private int unassignedCount;

    PageTable(PageMemory memory) {
        this.memory = memory;
        int pages = memory.pageCount();
        this.slotOwners = new SlabEntry[pages][];
        this.usedSlots = new int[pages];
        this.unassigned = new int[pages];
        for (int i = 0; i < pages; i++) {
            unassigned[i] = pages - 1 - i;
        }
        this.unassignedCount = pages;
    }

    /** A page no class owns yet, or -1 once every page is assigned. */
    synchronized int takeUnassigned() {
        return unassignedCount == 0 ? -1 : unassigned[--unassignedCount];
    }

    synchronized int unassignedCount() {
        return unassignedCount;
    }

    /** Prepares {@code page} for a class that cuts it into {@code slots} chunks. Caller owns the page. */
    void format(int page, int slots) {
        slotOwners[page] = new SlabEntry[slots];
        usedSlots[page] = 0;
    }

    /** Forgets the page's chunk layout when it leaves a class. Caller owns the page. */
    void clear(int page) {
        slotOwners[page] = null;
        usedSlots[page] = 0;
    }

    SlabEntry owner(int page, int slot) {
        return slotOwners[page][slot];
    }

    void occupy(SlabEntry entry) {
        slotOwners[entry.page][entry.slot] = entry;
        usedSlots[entry.page]++;
    }

    void vacate(SlabEntry entry) {
        slotOwners[entry.page][entry.slot] = null;
        usedSlots[entry.page]--;
    }

    int usedSlots(int page) {
        return usedSlots[page];
    }
}
