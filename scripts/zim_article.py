"""An HTML article for libzim's writer, as Kiwix's Wikipedia files store them (path: the title
with underscores; a front article). Shared by make-demo-zim.py and make-bench-zim.py."""

from libzim.writer import Hint, Item, StringProvider


class Article(Item):
    def __init__(self, title, text):
        super().__init__()
        self.title, self.text = title, text

    def get_path(self):
        return self.title.replace(" ", "_")

    def get_title(self):
        return self.title

    def get_mimetype(self):
        return "text/html"

    def get_contentprovider(self):
        return StringProvider(self.text)

    def get_hints(self):
        return {Hint.FRONT_ARTICLE: True}
