"""Sound design in the studio: sound lanes, clips, trims and the library panel."""
