"""Script revisions in the studio: File > Import Revision, its report, and applying it as one undo step."""
