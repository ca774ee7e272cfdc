"""Everyday questions no knowledge repository of this product is meant to answer.

`kbtools.query.calibration` scores every index against them at build time: how similar the
best chunk of *this* index looks to a question it cannot answer is the background that a
real question's scores are measured against (per index and per embedding model). They are
deliberately far from field work — cooking, travel, sport, health, money, pets, school —
and split evenly between Chinese and English, in the short style of a user's question.
Changing the list changes every index's calibration: bump CALIBRATION_VERSION with it.
"""

from __future__ import annotations

ZH = (
    "红烧肉怎么做才不腻",
    "周末去海边玩要带什么",
    "感冒了能不能喝咖啡",
    "小孩晚上老是哭闹怎么办",
    "猫咪不吃猫粮是什么原因",
    "信用卡逾期一天会影响征信吗",
    "怎么挑选新鲜的螃蟹",
    "去日本旅游需要办签证吗",
    "跑马拉松前一天吃什么",
    "房贷提前还款划算吗",
    "头发掉得厉害是怎么回事",
    "高考志愿怎么填报比较稳",
    "家里的绿萝叶子发黄怎么办",
    "婚礼上伴郎要做些什么",
    "羽毛球拍的磅数怎么选",
    "怎么学好英语口语",
    "手机电池不耐用怎么回事",
    "狗狗打疫苗前能洗澡吗",
    "冬天皮肤干燥痒怎么护理",
    "租房合同要注意哪些条款",
    "电影院的爆米花为什么那么贵",
    "孕妇可以吃螃蟹吗",
    "怎么给父母挑选生日礼物",
    "失眠睡不着有什么好办法",
    "北京哪家烤鸭最好吃",
    "钢琴考级要考哪些曲目",
    "怎么减肥不反弹",
    "养老保险交满多少年能领",
    "牙齿敏感喝冷水就疼怎么办",
    "第一次见女朋友家长穿什么",
    "世界杯下一届在哪里举办",
    "蛋糕烤出来塌陷是什么原因",
)

EN = (
    "How do I make a fluffy pancake?",
    "What should I pack for a beach holiday?",
    "Is it safe to drink coffee when I have a cold?",
    "Why does my cat refuse to eat dry food?",
    "How long does it take to get a passport renewed?",
    "What is the best way to learn to play guitar?",
    "Can I pay off my mortgage early without a penalty?",
    "How do I get my toddler to sleep through the night?",
    "Which running shoes are good for flat feet?",
    "What time does the museum open on Sundays?",
    "How do I remove a red wine stain from a carpet?",
    "Who won the football world cup in 2010?",
    "What are the symptoms of a vitamin D deficiency?",
    "How much should I tip at a restaurant in New York?",
    "What is a good gift for my grandmother's birthday?",
    "How do I keep my houseplants alive in winter?",
    "Why is my phone battery draining so fast?",
    "How can I improve my credit score quickly?",
    "What is the plot of the novel Pride and Prejudice?",
    "How many calories are in a slice of pizza?",
    "Where can I watch the new season of my favourite show?",
    "How do I train my puppy to stop biting?",
    "What should I wear to a job interview at a bank?",
    "How do I cure hiccups fast?",
    "Which city has the best nightlife in Europe?",
    "How do I write a wedding speech for my sister?",
    "Is it better to rent or buy an apartment?",
    "How do I fix a squeaky bedroom door?",
    "What are good stretches for a stiff neck?",
    "How long should I boil an egg for a runny yolk?",
    "When is the best season to visit Iceland?",
    "How do I choose a name for my baby girl?",
)

QUESTIONS = ZH + EN
